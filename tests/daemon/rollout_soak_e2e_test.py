"""Issue 29's soak (minSuccessTime) against kubesim with the real daemon, judged from kubesim's
audit and events:

  - a health flap during the soak restarts it: step 1's Deployment is made Degraded by another
    tool (a PATCH to a never-ready image with a 2 s progress deadline) while step 1 soaks, then
    put back; step 2's first write comes at least minSuccessTime after the Deployment was
    available again, not minSuccessTime after it first was;
  - the soak clock is durable: the daemon is killed (-9) mid-soak and restarted; step 2 still
    waits out the remainder of the soak (never zero: at least minSuccessTime after step 1 was
    available) and does not start a fresh one (before the restart + minSuccessTime), and the
    stored soakStartedAt is the one from before the kill.
"""
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, GUESTBOOK_IMAGE, appset_yaml, available_at, parse_time, \
    wait_for

FAIL_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:fail"
DEPLOYMENT = "/apis/apps/v1/namespaces/%s/deployments/%s"


def soak_set(env, name, seconds):
    """sim-0 in step 1 (env-dev) with minSuccessTime, sim-1 in step 2 (env-qa)."""
    doc = yaml.safe_load(appset_yaml(name, env.elements(["env-dev", "env-qa"]),
                                     steps=[(["env-dev"], None), (["env-qa"], None)],
                                     repo_url=env.repo_url))
    doc["spec"]["strategy"]["rollingSync"]["steps"][0]["minSuccessTime"] = "%ds" % seconds
    return yaml.safe_dump(doc, sort_keys=False)


def rollout_of(env, name):
    return ((env.appset(name) or {}).get("status") or {}).get("rollout") or {}


def health_of(env, app):
    return (((env.application(app) or {}).get("status") or {}).get("health") or {}).get("status")


def first_deployment_write(env, cluster):
    writes = [a for a in env.applies(cluster) if a["resource"] == "deployments"]
    return writes[0] if writes else None


class SoakFlap(unittest.TestCase):
    SOAK = 15

    def test_a_flap_during_the_soak_restarts_it(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("flap.yaml", soak_set(env, "flap", self.SOAK))
        env.start()
        wait_for(lambda: rollout_of(env, "flap").get("soakStep") == 1
                 and rollout_of(env, "flap").get("soakStartedAt"), timeout=60, interval=0.1,
                 what=lambda: "step 1 soaking: %s\n%s" % (rollout_of(env, "flap"), env.log_tail()))
        first_soak = parse_time(rollout_of(env, "flap")["soakStartedAt"])
        d = first_deployment_write(env, "sim-0")
        path = DEPLOYMENT % (d.get("namespace", ""), d["name"])

        # Another tool breaks the Deployment: a never-ready image, a 2 s progress deadline.
        status, _ = env.kubesim.request(
            "PATCH", path + "?fieldManager=kubectl-patch",
            {"spec": {"progressDeadlineSeconds": 2, "template": {"spec": {"containers": [
                {"name": "guestbook-ui", "image": FAIL_IMAGE}]}}}},
            cluster="sim-0", content_type="application/strategic-merge-patch+json")
        self.assertEqual(status, 200)
        wait_for(lambda: health_of(env, "sim-0-flap") == "Degraded"
                 and not rollout_of(env, "flap").get("soakStartedAt"), timeout=30, interval=0.1,
                 what=lambda: "the flap seen and the soak stopped: %s %s\n%s"
                 % (health_of(env, "sim-0-flap"), rollout_of(env, "flap"), env.log_tail()))
        self.assertIsNone(first_deployment_write(env, "sim-1"), "step 2 started during a flap")

        # Put back: the Deployment rolls out the good image again and becomes available.
        put_back_at = time.time()
        status, body = env.kubesim.request(
            "PATCH", path + "?fieldManager=kubectl-patch",
            {"spec": {"progressDeadlineSeconds": 60, "template": {"spec": {"containers": [
                {"name": "guestbook-ui", "image": GUESTBOOK_IMAGE}]}}}},
            cluster="sim-0", content_type="application/strategic-merge-patch+json")
        self.assertEqual(status, 200, body)
        generation = body["metadata"]["generation"]
        env.wait_completed("flap", timeout=90)

        recovered = available_at(env.available_events(), "sim-0", d.get("namespace", ""),
                                 d["name"], generation, put_back_at - 1.0)
        self.assertIsNotNone(recovered, "the Deployment never became available again")
        step2 = first_deployment_write(env, "sim-1")
        self.assertIsNotNone(step2)
        gap = step2["t"] - recovered
        print("step 2's first write %.2f s after the recovery, %.2f s after the first soak began"
              % (gap, step2["t"] - first_soak))
        self.assertGreaterEqual(gap, self.SOAK, "the flap did not restart the soak: step 2 was "
                                "written %.1f s after the recovery" % gap)
        # A timer ends the restarted soak: step 2 starts within a few seconds of its end.
        self.assertLess(gap, self.SOAK + 5.0)


class SoakAcrossKill9(unittest.TestCase):
    SOAK = 20
    KILL_AFTER = 8  # seconds into the soak

    def test_the_soak_clock_survives_a_kill9(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("durable.yaml", soak_set(env, "durable", self.SOAK))
        env.start()
        wait_for(lambda: rollout_of(env, "durable").get("soakStartedAt"), timeout=60,
                 interval=0.1, what=lambda: "step 1 soaking: %s\n%s"
                 % (rollout_of(env, "durable"), env.log_tail()))
        soak_started = rollout_of(env, "durable")["soakStartedAt"]
        # When to crash is the test's input, not a synchronisation: KILL_AFTER seconds into
        # the soak, well before its end.
        time.sleep(max(0.0, parse_time(soak_started) + self.KILL_AFTER - time.time()))
        self.assertIsNone(first_deployment_write(env, "sim-1"), "step 2 started mid-soak")
        env.kill9()
        restarted_at = time.time()
        env.start()
        # The restarted daemon continues the stored clock rather than starting a new one.
        wait_for(lambda: rollout_of(env, "durable").get("generation"), timeout=30,
                 what=lambda: "the set loaded after the restart\n" + env.log_tail())
        after = rollout_of(env, "durable")
        if after.get("soakStartedAt"):
            self.assertEqual(after["soakStartedAt"], soak_started, after)
        env.wait_completed("durable", timeout=90)

        d = first_deployment_write(env, "sim-0")
        available = available_at(env.available_events(), "sim-0", d.get("namespace", ""),
                                 d["name"], d.get("generation"), d["t"])
        self.assertIsNotNone(available, "step 1's Deployment never became available")
        step2 = first_deployment_write(env, "sim-1")
        self.assertIsNotNone(step2)
        print("step 2's first write %.2f s after step 1 was available, %.2f s after the restart"
              % (step2["t"] - available, step2["t"] - restarted_at))
        self.assertGreaterEqual(step2["t"] - available, self.SOAK,
                                "the restart ended the soak early")
        self.assertLess(step2["t"], restarted_at + self.SOAK,
                        "the restart began a fresh full soak instead of its remainder")


if __name__ == "__main__":
    unittest.main()
