"""Issue 29's abort against kubesim with the real daemon and the real CLI:

  - `fleetwave abort SET` while a new revision soaks in step 1 halts the rollout: step 2's
    cluster is never written with the new image (read back from kubesim's audit and the
    Deployment itself) — not when the soak would have ended, not at the polls that find the
    same commit again, not after kill -9 and a restart (the abort is durable);
  - RolloutProgressing False / RolloutAborted names the step and the caller, `get appset`
    shows Aborted, the log names the caller;
  - the next commit rolls out again, to every cluster;
  - drift made by hand while the rollout is aborted (selfHeal on) is reported, not healed,
    and does not end the abort; a resume heals it in step order and the rollout completes.
"""
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for

NEXT_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:0.3"
THIRD_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:0.4"
SOAK = 6
DEPLOYMENT = "/apis/apps/v1/namespaces/held/deployments/guestbook-ui"


def rollout_of(env, name):
    return ((env.appset(name) or {}).get("status") or {}).get("rollout") or {}


def progressing_of(env, name):
    for c in ((env.appset(name) or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "RolloutProgressing":
            return c
    return {}


def wait_until(t):
    """Lets wall time reach `t`: the test's input (how long the abort is held), not a
    synchronisation — what must hold meanwhile is asserted after it."""
    while time.time() < t:
        time.sleep(min(0.05, max(0.0, t - time.time())))


class Abort(unittest.TestCase):
    def image_on(self, env, cluster):
        status, body = env.kubesim.request("GET", DEPLOYMENT, cluster=cluster)
        self.assertEqual(status, 200, body)
        return body["spec"]["template"]["spec"]["containers"][0]["image"]

    def completed_two_step_set(self, sync_policy=None):
        """dev then qa, step 1 soaking SOAK seconds, rolled out at the first commit."""
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        doc = yaml.safe_load(appset_yaml("held", env.elements(["env-dev", "env-qa"]),
                                         steps=[(["env-dev"], None), (["env-qa"], None)],
                                         sync_policy=sync_policy, repo_url=env.repo_url))
        doc["spec"]["strategy"]["rollingSync"]["steps"][0]["minSuccessTime"] = "%ds" % SOAK
        env.write_appset("held.yaml", yaml.safe_dump(doc, sort_keys=False))
        env.start()
        env.wait_completed_at(env.head(), "held", timeout=90)
        return env

    def abort_while_step_1_soaks(self, env):
        """A new revision: step 1 syncs it and soaks; the operator aborts during the soak.
        Returns the revision and the CLI's answer."""
        revision = env.set_manifest(image=NEXT_IMAGE)
        wait_for(lambda: rollout_of(env, "held").get("soakStep") == 1
                 and rollout_of(env, "held").get("soakStartedAt")
                 and self.image_on(env, "sim-0") == NEXT_IMAGE, timeout=60, interval=0.1,
                 what=lambda: "step 1 soaking at the new revision: %s\n%s"
                 % (rollout_of(env, "held"), env.log_tail()))
        return revision, env.cli("abort", "held")

    def test_abort_holds_the_revision_until_the_next_commit(self):
        env = self.completed_two_step_set()
        second, answer = self.abort_while_step_1_soaks(env)
        self.assertIn("aborted at step 1", answer)
        aborted_at = time.time()
        wait_for(lambda: progressing_of(env, "held").get("reason") == "RolloutAborted",
                 timeout=10, interval=0.1,
                 what=lambda: "RolloutAborted: %s" % progressing_of(env, "held"))
        condition = progressing_of(env, "held")
        self.assertEqual(condition.get("status"), "False")
        self.assertTrue(condition["message"].startswith(
            "ApplicationSet rollout was aborted at step 1 by "), condition)
        self.assertTrue(condition["message"].endswith(
            ": nothing more is promoted or synced and its revision is held until a new revision "
            "or a resume"), condition)
        self.assertEqual(rollout_of(env, "held").get("aborted"), True)
        self.assertIn("rollout aborted by ", env.log())
        self.assertIn("Aborted", env.cli("get", "appset", "held"))

        # Past the soak's end and several polls of the same commit: step 2 stays unwritten.
        wait_until(aborted_at + SOAK + 3)
        self.assertNotEqual(self.image_on(env, "sim-1"), NEXT_IMAGE)
        # Durable: killed and restarted, the daemon keeps holding it.
        env.kill9()
        env.start()
        wait_until(time.time() + 4)
        self.assertEqual(progressing_of(env, "held").get("reason"), "RolloutAborted",
                         env.log_tail())
        self.assertNotEqual(self.image_on(env, "sim-1"), NEXT_IMAGE)
        self.assertEqual(env.head(), second)

        # The next commit rolls out again, to every cluster.
        third = env.set_manifest(image=THIRD_IMAGE)
        env.wait_completed_at(third, "held", timeout=90)
        self.assertEqual(self.image_on(env, "sim-0"), THIRD_IMAGE)
        self.assertEqual(self.image_on(env, "sim-1"), THIRD_IMAGE)
        self.assertNotIn("aborted", rollout_of(env, "held"))
        # sim-1 never had the held revision: its Deployment went from the first image to the
        # third.
        qa_images = [a for a in env.applies("sim-1") if a["resource"] == "deployments"]
        self.assertEqual(len(qa_images), 2, qa_images)

    def test_drift_while_aborted_is_reported_and_a_resume_heals_it(self):
        env = self.completed_two_step_set(sync_policy={"automated": {"selfHeal": True}})
        second, _ = self.abort_while_step_1_soaks(env)
        wait_for(lambda: progressing_of(env, "held").get("reason") == "RolloutAborted",
                 timeout=10, interval=0.1,
                 what=lambda: "RolloutAborted: %s" % progressing_of(env, "held"))

        # Another tool deletes dev's Deployment while the rollout is aborted.
        deleted_at = time.time()
        status, body = env.kubesim.request("DELETE", DEPLOYMENT, cluster="sim-0")
        self.assertIn(status, (200, 202), body)

        def out_of_sync():
            app = env.application("sim-0-held") or {}
            return ((app.get("status") or {}).get("sync") or {}).get("status") == "OutOfSync"
        wait_for(out_of_sync, timeout=15, interval=0.1,
                 what=lambda: "the drift reported (OutOfSync)\n" + env.log_tail())
        # Reported, not healed, through the soak's end and several polls: no write to either
        # cluster, and the abort stands.
        wait_until(time.time() + SOAK + 3)
        self.assertEqual(env.kubesim.request("GET", DEPLOYMENT, cluster="sim-0")[0], 404)
        writes = [a for a in env.applies() if parse_time(a["time"]) >= deleted_at]
        self.assertEqual(writes, [], "nothing is written while the rollout is aborted")
        self.assertEqual(progressing_of(env, "held").get("reason"), "RolloutAborted",
                         env.log_tail())

        # A resume heals dev's Deployment first (at the held revision), then the rollout
        # goes on to qa and completes.
        resumed_at = time.time()
        env.cli("resume", "held")
        env.wait_completed_at(second, "held", timeout=90)
        self.assertEqual(self.image_on(env, "sim-0"), NEXT_IMAGE)
        self.assertEqual(self.image_on(env, "sim-1"), NEXT_IMAGE)
        dev = [parse_time(a["time"]) for a in env.applies("sim-0")
               if a["resource"] == "deployments" and parse_time(a["time"]) >= resumed_at]
        qa = [parse_time(a["time"]) for a in env.applies("sim-1")
              if a["resource"] == "deployments" and parse_time(a["time"]) >= resumed_at]
        self.assertTrue(dev and qa, (dev, qa))
        self.assertLess(min(dev), min(qa), "the healed step before the next one")


if __name__ == "__main__":
    unittest.main()
