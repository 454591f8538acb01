"""Issue 32: after a completed two-step RollingSync rollout (dev, then prod), dev's Deployment
deleted by hand is re-created by the rollout (selfHeal in the template), the set says the
rollout has completed again, and prod's unchanged Deployment gets no write (kubesim's audit).
With `fleetwave.io/drift: report` the same deletion shows OutOfSync, fleetwave_app_drifted
goes to 1, and nothing is written."""
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for

DEPLOYMENT = "/apis/apps/v1/namespaces/%s/deployments/guestbook-ui"


def with_annotation(text, key, value):
    doc = yaml.safe_load(text)
    doc["metadata"].setdefault("annotations", {})[key] = value
    return yaml.safe_dump(doc, sort_keys=False)


class RollingDrift(unittest.TestCase):
    def start(self, report):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        text = appset_yaml("guestbook", env.elements(["env-dev", "env-prod"]),
                           steps=[(["env-dev"], None), (["env-prod"], None)],
                           sync_policy={"automated": {"selfHeal": True}},
                           repo_url=env.repo_url)
        if report:
            text = with_annotation(text, "fleetwave.io/drift", "report")
        env.write_appset("guestbook.yaml", text)
        env.start()
        env.wait_completed("guestbook", timeout=90)
        return env

    def writes(self, env, cluster, since):
        return [a for a in env.audit(cluster)
                if str(a.get("verb", "")).lower() in ("patch", "create", "update", "put", "post")
                and parse_time(a["time"]) >= since]

    def delete_dev_deployment(self, env):
        status, body = env.kubesim.request("DELETE", DEPLOYMENT % "guestbook", cluster="sim-0")
        self.assertIn(status, (200, 202), body)

    def exists(self, env, cluster):
        status, _ = env.kubesim.request("GET", DEPLOYMENT % "guestbook", cluster=cluster)
        return status == 200

    def test_a_deleted_deployment_is_recreated_in_step_order(self):
        env = self.start(report=False)
        deleted_at = time.time()
        self.delete_dev_deployment(env)
        wait_for(lambda: self.exists(env, "sim-0"), timeout=10,
                 what=lambda: "dev's Deployment re-created\n" + env.log_tail())
        wait_for(lambda: env.rollout_completed("guestbook"), timeout=30,
                 what=lambda: "the rollout completed again\n" + env.log_tail())
        self.assertEqual(self.writes(env, "sim-1", deleted_at), [],
                         "prod's unchanged Deployment gets no write")
        self.assertIn("drifted from its pinned revision", env.log())

    def test_with_the_opt_out_drift_is_reported_and_nothing_is_written(self):
        env = self.start(report=True)
        deleted_at = time.time()
        self.delete_dev_deployment(env)

        def reported():
            sync = ((env.application("sim-0-guestbook") or {}).get("status") or {}).get(
                "sync") or {}
            return (sync.get("status") == "OutOfSync"
                    and any(line.startswith("fleetwave_app_drifted{") and line.endswith(" 1")
                            and 'application="sim-0-guestbook"' in line
                            for line in env.metrics_text().splitlines()))
        wait_for(reported, timeout=10,
                 what=lambda: "OutOfSync and fleetwave_app_drifted 1\n" + env.log_tail())
        self.assertFalse(self.exists(env, "sim-0"))
        self.assertEqual(self.writes(env, "sim-0", deleted_at), [])
        self.assertEqual(self.writes(env, "sim-1", deleted_at), [])


if __name__ == "__main__":
    unittest.main()
