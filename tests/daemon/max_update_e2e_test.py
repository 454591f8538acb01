"""Acceptance 2 of issue 13: 20 clusters in one step with maxUpdate: 10% — at most 2 of its
apps are ever promoted (first write seen in kubesim's audit) and not yet available (kubesim's
`available` event for the Deployment at the generation that write produced)."""
import unittest

from daemon_harness import DaemonEnv, appset_yaml, available_at

CLUSTERS = 20


def max_in_flight(applies, events):
    """The largest number of apps promoted and not yet available at any instant. An app's
    interval is [its first write, its Deployment's first `available` event at the generation of
    its last write before that event); at equal times an availability is counted before a
    promotion (the daemon can only promote after it saw the availability)."""
    edges = []
    unfinished = []
    by_cluster = {}
    for a in applies:
        by_cluster.setdefault(a["cluster"], []).append(a)
    for cluster, writes in by_cluster.items():
        start = writes[0]["t"]
        deployments = [w for w in writes if w["resource"] == "deployments"]
        end = None
        if deployments:
            d = deployments[0]
            end = available_at(events, cluster, d.get("namespace", ""), d["name"],
                               d.get("generation"), d["t"])
        if end is None:
            unfinished.append(cluster)
            end = float("inf")
        edges.append((start, 1))
        edges.append((end, -1))
    edges.sort(key=lambda e: (e[0], e[1]))  # -1 (available) before +1 (promoted) at a tie
    current = peak = 0
    for _, delta in edges:
        current += delta
        peak = max(peak, current)
    return peak, unfinished


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
