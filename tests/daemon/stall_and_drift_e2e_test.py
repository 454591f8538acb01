"""Acceptance 5 of issue 13: a failing image in step 1 stalls the rollout (nothing of step 2 is
ever written); deleting an applied Deployment shows the app OutOfSync, and an AllAtOnce set with
automated selfHeal applies it again."""
import time
import unittest

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for


def app_field(env, app, *path):
    value = env.application(app) or {}
    for p in path:
        value = (value or {}).get(p) if isinstance(value, dict) else None
    return value


class FailingImageStalls(unittest.TestCase):
    def test_step_two_is_never_written_while_step_one_fails(self):
        # kubesim never makes a pod with `fail` in its image tag ready; the Deployment's progress
        # deadline (3 s) then turns it ProgressDeadlineExceeded, which fleetwave reads Degraded.
        env = DaemonEnv(clusters=2, image="gcr.io/heptio-images/ks-guestbook-demo:fail",
                        progress_deadline=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa"]),
            steps=[(["env-dev"], None), (["env-qa"], None)], repo_url=env.repo_url))
        env.start()
        dev, qa = "sim-0-guestbook", "sim-1-guestbook"

        def no_step_two():
            self.assertEqual(env.applies("sim-1"), [], "step 2 was written: " + env.log_tail())

        # The observation window is a condition, not a sleep: from step 1's write until the
        # daemon has reported its app Degraded (after the 3 s deadline) and reconciled again
        # 2 s later, step 2's app stays Waiting and nothing reaches its cluster.
        def stalled():
            no_step_two()
            dev_writes = env.applies("sim-0")
            st = env.app_statuses("guestbook")
            health = app_field(env, dev, "status", "health", "status")
            reconciled = app_field(env, dev, "status", "reconciledAt")
            if not (dev_writes and st.get(dev, {}).get("status") == "Progressing"
                    and st.get(qa, {}).get("status") == "Waiting" and health == "Degraded"
                    and reconciled):
                return False
            return parse_time(reconciled) >= dev_writes[-1]["t"] + 5
        wait_for(stalled, timeout=60, interval=0.1,
                 what=lambda: "step 1 Degraded for 5 s with step 2 Waiting\n" + env.log_tail())
        self.assertFalse(env.rollout_completed("guestbook"))
        no_step_two()


class DeletedDeployment(unittest.TestCase):
    def test_out_of_sync_and_self_heal(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        # "drift" (sim-0): automated without selfHeal, so the deletion stays visible.
        # "heal" (sim-1): automated with selfHeal, so the deletion is repaired.
        env.write_appset("drift.yaml", appset_yaml(
            "drift", env.elements(["env-dev"]), strategy="AllAtOnce",
            sync_policy={"automated": {"selfHeal": False}}, repo_url=env.repo_url))
        env.write_appset("heal.yaml", appset_yaml(
            "heal", [{"cluster": "sim-1", "url": env.url("sim-1"), "env": "env-dev"}],
            strategy="AllAtOnce",
            sync_policy={"automated": {"selfHeal": True}}, repo_url=env.repo_url))
        env.start()
        drift, heal = "sim-0-drift", "sim-1-heal"

        def synced_healthy(app):
            return (app_field(env, app, "status", "sync", "status") == "Synced"
                    and app_field(env, app, "status", "health", "status") == "Healthy")
        wait_for(lambda: synced_healthy(drift) and synced_healthy(heal), timeout=60,
                 what=lambda: "both apps Synced and Healthy\n" + env.log_tail())

        deleted_at = time.time()
        for cluster, ns in (("sim-0", "drift"), ("sim-1", "heal")):
            status, body = env.kubesim.request(
                "DELETE", "/apis/apps/v1/namespaces/%s/deployments/guestbook-ui" % ns,
                cluster=cluster)
            self.assertIn(status, (200, 202), body)

        wait_for(lambda: app_field(env, drift, "status", "sync", "status") == "OutOfSync",
                 timeout=30, what=lambda: "%s OutOfSync after its Deployment was deleted\n%s"
                 % (drift, env.log_tail()))

        def healed():
            rewritten = [a for a in env.applies("sim-1")
                         if a["resource"] == "deployments" and a["t"] >= deleted_at - 0.01]
            return rewritten and synced_healthy(heal)
        wait_for(healed, timeout=60, what=lambda: "%s's Deployment applied again by selfHeal\n%s"
                 % (heal, env.log_tail()))
        # Without selfHeal nothing repairs the drift.
        self.assertEqual([a for a in env.applies("sim-0")
                          if a["resource"] == "deployments" and a["t"] >= deleted_at - 0.01], [])
        self.assertEqual(app_field(env, drift, "status", "sync", "status"), "OutOfSync")


if __name__ == "__main__":
    unittest.main()
