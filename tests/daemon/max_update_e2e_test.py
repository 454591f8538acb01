"""Acceptance 2 of issue 13: 20 clusters in one step with maxUpdate: 10% — at most 2 of its
apps are ever promoted (first write seen in kubesim's audit) and not yet available (kubesim's
`available` event for the Deployment at the generation that write produced)."""
import unittest

from daemon_harness import DaemonEnv, appset_yaml, max_in_flight

CLUSTERS = 20


class MaxUpdatePercent(unittest.TestCase):
    def test_ten_percent_of_twenty_means_two_at_a_time(self):
        env = DaemonEnv(clusters=CLUSTERS)
        self.addCleanup(env.close)
        env.write_appset("fleet.yaml", appset_yaml(
            "fleet", env.elements(["env-fleet"] * CLUSTERS),
            steps=[(["env-fleet"], "10%")], repo_url=env.repo_url))
        env.start()
        env.wait_completed("fleet", timeout=240)

        applies = env.applies()
        events = env.available_events()
        self.assertEqual(sorted({a["cluster"] for a in applies}), sorted(env.clusters))
        peak, unfinished = max_in_flight(applies, events)
        self.assertEqual(unfinished, [], "apps never available: %s" % unfinished)
        self.assertLessEqual(peak, 2, "more than 10%% of 20 apps in flight at once: %d" % peak)
        self.assertGreaterEqual(peak, 1)


if __name__ == "__main__":
    unittest.main()
