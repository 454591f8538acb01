"""Issue 26: a Deployment's progress deadline is Kubernetes' own (kubesim's Deployment controller
writes `ProgressDeadlineExceeded`, as kube-controller-manager does), so the daemon keeps no
workload actor and no stored record for it, yet shows it as before:

  - GET /api/v1/workloads lists the Deployment exceeded, its condition exactly the controller's
    (nothing computed: no requeue), and fleetwave_workload_progress_deadline_exceeded is 1;
  - its app is Degraded with Kubernetes' message, and the transition is logged once;
  - the state database holds no workloads/ record for it;
  - kubesim's audit of reads (--audit-lists) shows the Deployments of the cluster watched once
    for deadlines (every namespace) and once for the apps' objects (the app label), whatever the
    number of Deployments (no watch names one).
"""
import os
import sqlite3
import unittest
from urllib.parse import unquote

from daemon_harness import DaemonEnv, appset_yaml, series_value, wait_for

FAIL_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:fail"


def deployment_item(env, cluster, name):
    body = env.get("/api/v1/workloads") or {}
    for item in body.get("items", []):
        if (item.get("cluster"), item.get("kind"), item.get("name")) == \
                (cluster, "Deployment", name):
            return item
    return None


class DeploymentDeadline(unittest.TestCase):
    def test_echoed_without_an_actor_a_record_or_a_second_watch_per_deployment(self):
        env = DaemonEnv(clusters=1, image=FAIL_IMAGE, progress_deadline=3,
                        kubesim_args=("--audit-lists",))
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev"]), strategy="AllAtOnce",
            sync_policy={"automated": {}}, repo_url=env.repo_url))
        env.start()
        app = "sim-0-guestbook"

        def exceeded():
            item = deployment_item(env, "sim-0", "guestbook-ui")
            return item if item and item.get("exceeded") else None
        item = wait_for(exceeded, timeout=60, interval=0.1,
                        what=lambda: "the Deployment shown exceeded\n" + env.log_tail())
        self.assertEqual(item["condition"]["reason"], "ProgressDeadlineExceeded", item)
        self.assertEqual(item["condition"], item["controllerCondition"],
                         "the condition shown is the controller's own")
        self.assertIsNone(item["requeueAt"], "nothing is timed for a Deployment")
        self.assertEqual(item["deadlineSeconds"], 3)
        labels = {"cluster": "sim-0", "kind": "Deployment", "name": "guestbook-ui"}
        wait_for(lambda: series_value(env.metrics_text(),
                                      "fleetwave_workload_progress_deadline_exceeded",
                                      labels) == 1.0,
                 timeout=20, interval=0.1,
                 what=lambda: "fleetwave_workload_progress_deadline_exceeded 1")

        def degraded():
            health = ((env.application(app) or {}).get("status") or {}).get("health") or {}
            return health if health.get("status") == "Degraded" else None
        health = wait_for(degraded, timeout=30, interval=0.1,
                          what=lambda: app + " Degraded\n" + env.log_tail())
        self.assertIn("exceeded its progress deadline", health.get("message", ""))
        transitions = [l for l in env.log().splitlines()
                       if "kind=Deployment name=guestbook-ui" in l
                       and "reason=ProgressDeadlineExceeded" in l]
        self.assertEqual(len(transitions), 1, transitions)

        # Nothing stored for it: Kubernetes holds the condition.
        db = sqlite3.connect(os.path.join(env.dir, "state.db"))
        try:
            keys = [k for (k,) in db.execute("SELECT key FROM kv WHERE key LIKE 'workloads/%'")]
        finally:
            db.close()
        self.assertEqual([k for k in keys if "/Deployment/" in k], [], keys)

        # One watch per purpose of the Deployment kind, not one per Deployment.
        watches = [a for a in env.audit("sim-0")
                   if str(a.get("verb", "")).lower() == "watch"
                   and a.get("resource") == "deployments"]
        purposes = sorted({"labelled" if "labelSelector" in unquote(a.get("target", ""))
                           else "every" for a in watches})
        self.assertEqual(purposes, ["every", "labelled"], watches)
        self.assertEqual([a for a in watches if a.get("name")], [],
                         "no watch of a single Deployment")


if __name__ == "__main__":
    unittest.main()
