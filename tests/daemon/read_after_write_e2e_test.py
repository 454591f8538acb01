"""Acceptance 4 of issue 13: read-after-write. Every cluster's watch events arrive 2 s late
(kubesim's watchDelayMs fault), so right after a write the daemon's cache still shows the old,
healthy object; the rollout must still wait for each step to be available on what was written."""
import unittest

from daemon_harness import DaemonEnv, appset_yaml, check_wave_order

STEPS = [["sim-0"], ["sim-1"], ["sim-2"]]


class ReadAfterWrite(unittest.TestCase):
    def test_order_holds_with_late_watch_events(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        for c in env.clusters:
            env.fault(c, watchDelayMs=2000)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        env.wait_completed("guestbook", timeout=120)
        first = env.applies()
        self.assertEqual(sorted({a["cluster"] for a in first}), env.clusters)
        violations = check_wave_order(first, env.available_events(), STEPS)
        self.assertEqual(violations, [], "\n".join(violations))

        # A second revision over the already-healthy Deployments: the stale cache now shows the
        # previous generation Healthy, the very case read-after-write gating exists for.
        since = first[-1]["t"] + 0.0005
        env.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:0.3")
        env.wait_completed_at(env.head(), "guestbook", timeout=120)
        applies = env.applies()
        self.assertEqual(sorted({a["cluster"] for a in applies if a["t"] >= since}), env.clusters)
        violations = check_wave_order(applies, env.available_events(), STEPS, since=since)
        self.assertEqual(violations, [], "\n".join(violations))


if __name__ == "__main__":
    unittest.main()
