"""Issue 14's Reverse deletion acceptance: an ApplicationSet of 3 steps x 3 clusters with
`deletionOrder: Reverse` is deleted after its file is removed (grace period 2 s). From kubesim's
audit and events: every delete to a step-3 cluster precedes every delete to a step-2 cluster,
and step-2 deletes begin only after every step-3 Deployment is gone (its `deleted` event); the
same between steps 2 and 1. The daemon is killed with `kill -9` once step 2's deletes began and
restarted: the deletion continues in the same order to the end, and the set is gone from the API.
Another ApplicationSet file stays in the directory throughout (an empty directory deletes nothing).

The step-1 and step-2 clusters answer slowly (a kubesim latency fault) so the kill lands while
step 2 is being deleted; the faults are cleared before the restart."""
import os
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for

NAME = "guestbook"
STEPS = [["sim-0", "sim-1", "sim-2"], ["sim-3", "sim-4", "sim-5"], ["sim-6", "sim-7", "sim-8"]]
ENVS = ["env-dev"] * 3 + ["env-qa"] * 3 + ["env-prod"] * 3


def set_grace(env, grace):
    with open(env.config_path) as f:
        config = yaml.safe_load(f)
    config["deletion"] = {"gracePeriod": grace}
    with open(env.config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


def deletes(env):
    out = []
    for a in env.audit():
        if str(a.get("verb", "")).lower() == "delete" and not a.get("dryRun"):
            a["t"] = parse_time(a["time"])
            out.append(a)
    return out


def deployment_deleted(env):
    """cluster -> time its guestbook Deployment's `deleted` event was recorded."""
    out = {}
    for e in env.events():
        if e.get("kind") == "Deployment" and e.get("event") == "deleted":
            out.setdefault(e["cluster"], parse_time(e["time"]))
    return out


def step_of(cluster):
    for k, clusters in enumerate(STEPS):
        if cluster in clusters:
            return k + 1
    return None


class ReverseDeletion(unittest.TestCase):
    def test_reverse_order_over_three_steps_survives_kill9(self):
        env = DaemonEnv(clusters=9)
        self.addCleanup(env.close)
        set_grace(env, "2s")
        doc = yaml.safe_load(appset_yaml(
            NAME, env.elements(ENVS),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        doc["spec"]["strategy"]["deletionOrder"] = "Reverse"
        env.write_appset("guestbook.yaml", yaml.safe_dump(doc, sort_keys=False))
        # Another file stays: an empty directory is never taken as a deletion.
        env.write_appset("anchor.yaml", appset_yaml("anchor", [], repo_url=env.repo_url,
                                                    strategy=None))
        env.start()
        env.wait_completed(NAME, timeout=60)
        self.assertEqual(deletes(env), [], "nothing is deleted by a rollout")

        for c in STEPS[0] + STEPS[1]:
            env.fault(c, latencyMs=1500)
        os.remove(os.path.join(env.appsets_dir, "guestbook.yaml"))
        wait_for(lambda: ((env.appset(NAME) or {}).get("status") or {}).get("deletion"),
                 timeout=15, what=lambda: "PendingDeletion in the API; log:\n" + env.log_tail())
        # Step 2's deletes have begun: the kill lands mid-deletion.
        wait_for(lambda: any(step_of(d["cluster"]) == 2 for d in deletes(env)), timeout=40,
                 interval=0.02, what=lambda: "a step-2 delete; log:\n" + env.log_tail())
        env.kill9()
        at_kill = deletes(env)
        self.assertFalse(any(step_of(d["cluster"]) == 1 for d in at_kill),
                         "the kill came after step 1 began, proving nothing")
        for c in env.clusters:
            env.clear_faults(c)
        env.start()
        wait_for(lambda: env.appset(NAME) is None and len(deployment_deleted(env)) == 9,
                 timeout=60, what=lambda: "the set deleted; deleted Deployments: %s; log:\n%s"
                 % (sorted(deployment_deleted(env)), env.log_tail()))

        dels = deletes(env)
        gone = deployment_deleted(env)
        by_step = {k: [d for d in dels if step_of(d["cluster"]) == k] for k in (1, 2, 3)}
        for k in (1, 2, 3):
            self.assertEqual(sorted({d["cluster"] for d in by_step[k]}), STEPS[k - 1],
                             "step %d: deletes on every cluster" % k)
        violations = []
        for later, earlier in ((3, 2), (2, 1)):
            first_earlier = min(d["t"] for d in by_step[earlier])
            for d in by_step[later]:
                if d["t"] > first_earlier:
                    violations.append("step-%d delete %s %s/%s at %s after the first step-%d "
                                      "delete" % (later, d["cluster"], d["resource"], d["name"],
                                                  d["time"], earlier))
            for c in STEPS[later - 1]:
                if gone[c] > first_earlier:
                    violations.append("step-%d cluster %s's Deployment was gone only after the "
                                      "first step-%d delete" % (later, c, earlier))
        self.assertEqual(violations, [], "\n".join(violations))
        self.assertIn("deletionOrder Reverse", env.log())
        self.assertIn("appset=%s deleted" % NAME, env.log())


if __name__ == "__main__":
    unittest.main()
