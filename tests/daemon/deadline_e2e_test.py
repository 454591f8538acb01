"""Issue 14's progress-deadline acceptance against kubesim with the real daemon: CloneSets with
`progressDeadlineSeconds` deployed by ApplicationSets (kubesim never makes a `fail` image ready
and writes no Progressing condition of its own, so every condition seen is fleetwave's):

  - step 1's CloneSet (deadline 5 s) shows exceeded in GET /api/v1/workloads between 5 and 7 s
    after kubesim's `rolloutStarted`; its app is Degraded and step 2 is never written;
  - a paused CloneSet (deadline 5 s) kept paused for 60 s never times out;
  - after kill -9 and a restart, a progressing CloneSet (deadline 20 s) keeps its original
    lastUpdateTime and times out 20 s after it, not 20 s after the restart.

All three run in one daemon over one 60 s window, so the suite stays near 80 s of wall time.
"""
import os
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for


def clone_set(name, deadline, paused=False, image="example.com/web:fail"):
    spec = {
        "replicas": 2,
        "progressDeadlineSeconds": deadline,
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": "web", "image": image}]}},
    }
    if paused:
        spec["updateStrategy"] = {"paused": True}
    return {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
            "metadata": {"name": name}, "spec": spec}


def write_manifests(env, path, docs):
    os.makedirs(os.path.join(env.repo, path), exist_ok=True)
    with open(os.path.join(env.repo, path, "clonesets.yaml"), "w") as f:
        yaml.safe_dump_all(docs, f, sort_keys=False)
    env.commit("clonesets for " + path, path)


def workload(env, cluster, namespace, name):
    body = env.get("/api/v1/workloads") or {}
    for item in body.get("items", []):
        if (item.get("cluster"), item.get("namespace"), item.get("kind"), item.get("name")) == \
                (cluster, namespace, "CloneSet", name):
            return item
    return None


def reason(item):
    return ((item or {}).get("condition") or {}).get("reason")


def rollout_started(env, cluster, namespace, name):
    for e in env.events(cluster):
        if (e.get("kind"), e.get("namespace"), e.get("name"), e.get("event")) == \
                ("CloneSet", namespace, name, "rolloutStarted"):
            return parse_time(e["time"])
    return None


def writes(env, cluster):
    """Every successful client write to `cluster` (kubesim audits client requests only)."""
    return [a for a in env.audit(cluster)
            if str(a.get("verb", "")).lower() in ("patch", "put", "post", "create", "update")
            and 200 <= a.get("code", 0) < 300]


class ProgressDeadlines(unittest.TestCase):
    def test_timeout_stall_pause_and_restart(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        write_manifests(env, "stall", [clone_set("web", 5)])
        write_manifests(env, "held", [clone_set("held", 5, paused=True),
                                      clone_set("slow", 20)])
        # "stall": RollingSync, step 1 = sim-0, step 2 = sim-1. "held": sim-2, automated.
        env.write_appset("stall.yaml", appset_yaml(
            "stall", env.elements(["env-dev", "env-qa"]),
            steps=[(["env-dev"], None), (["env-qa"], None)], path="stall",
            repo_url=env.repo_url))
        env.write_appset("held.yaml", appset_yaml(
            "held", [{"cluster": "sim-2", "url": env.url("sim-2"), "env": "env-prod"}],
            path="held", strategy="AllAtOnce", sync_policy={"automated": {}},
            repo_url=env.repo_url))
        env.start()
        paused_checks = []

        def never_exceeded_while_paused():
            held = workload(env, "sim-2", "held", "held")
            if held is not None:
                paused_checks.append(time.time())
                self.assertEqual(reason(held), "CloneSetPaused", held)
                self.assertFalse(held.get("exceeded"), held)

        # 1. Step 1's CloneSet times out 5..7 s after its rollout started.
        def exceeded():
            never_exceeded_while_paused()
            item = workload(env, "sim-0", "stall", "web")
            return item if item and item.get("exceeded") else None
        item = wait_for(exceeded, timeout=40, interval=0.05,
                        what=lambda: "sim-0's CloneSet exceeded\n" + env.log_tail())
        seen_at = time.time()
        started = rollout_started(env, "sim-0", "stall", "web")
        self.assertIsNotNone(started, env.events("sim-0"))
        print("\nsim-0's CloneSet shown exceeded %.2f s after rolloutStarted" % (seen_at - started))
        self.assertGreaterEqual(seen_at - started, 5.0, item)
        self.assertLessEqual(seen_at - started, 7.0, item)
        self.assertEqual(item["condition"]["status"], "False")
        self.assertEqual(item["condition"]["message"],
                         "CloneSet revision %s has timed out progressing" % item["revision"])
        self.assertEqual(item["deadlineSeconds"], 5)
        self.assertIsNone(item["requeueAt"])

        # ... its app is Degraded with the timeout's message, and step 2 is never written.
        dev = "sim-0-stall"

        def degraded():
            never_exceeded_while_paused()
            self.assertEqual(writes(env, "sim-1"), [], "step 2 was written\n" + env.log_tail())
            app = env.application(dev) or {}
            health = (app.get("status") or {}).get("health") or {}
            return health if health.get("status") == "Degraded" else None
        health = wait_for(degraded, timeout=20, interval=0.1,
                          what=lambda: dev + " Degraded\n" + env.log_tail())
        self.assertIn("has timed out progressing", health.get("message", ""))
        transitions = [l for l in env.log().splitlines()
                       if "kind=CloneSet name=web" in l and "reason=ProgressDeadlineExceeded" in l]
        self.assertEqual(len(transitions), 1, transitions)

        # 2. kill -9 while "slow" (deadline 20 s) progresses; the restart keeps its clock.
        slow = wait_for(lambda: workload(env, "sim-2", "held", "slow"), timeout=20,
                        what=lambda: "the slow CloneSet listed\n" + env.log_tail())
        self.assertEqual(reason(slow), "CloneSetUpdated", slow)
        last_update = slow["condition"]["lastUpdateTime"]
        wait_for(lambda: time.time() >= parse_time(last_update) + 8, timeout=20)
        never_exceeded_while_paused()
        env.kill9()
        env.start()
        again = wait_for(lambda: workload(env, "sim-2", "held", "slow"), timeout=20,
                         what=lambda: "the slow CloneSet listed after the restart\n"
                         + env.log_tail())
        self.assertEqual(again["condition"]["lastUpdateTime"], last_update, again)

        def slow_exceeded():
            never_exceeded_while_paused()
            item = workload(env, "sim-2", "held", "slow")
            return item if item and item.get("exceeded") else None
        wait_for(slow_exceeded, timeout=30, interval=0.05,
                 what=lambda: "the slow CloneSet exceeded\n" + env.log_tail())
        after = time.time() - parse_time(last_update)
        print("the slow CloneSet shown exceeded %.2f s after its lastUpdateTime %s (kept across "
              "kill -9)" % (after, last_update))
        self.assertGreaterEqual(after, 20.0)
        self.assertLessEqual(after, 22.5, "the clock restarted with the daemon")

        # 3. The paused CloneSet, watched since its rollout started, never times out in 60 s.
        held_started = rollout_started(env, "sim-2", "held", "held")
        self.assertIsNotNone(held_started)

        def sixty_seconds_paused():
            never_exceeded_while_paused()
            return time.time() >= held_started + 60
        wait_for(sixty_seconds_paused, timeout=70, interval=0.5)
        never_exceeded_while_paused()
        self.assertGreater(len(paused_checks), 50)
        self.assertGreaterEqual(paused_checks[-1] - held_started, 60.0)
        self.assertEqual(writes(env, "sim-1"), [], "step 2 was written\n" + env.log_tail())


if __name__ == "__main__":
    unittest.main()
