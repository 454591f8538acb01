"""Acceptance 3 of issue 13: new commits. One that leaves the rendered objects unchanged (a
README outside the app's path) writes nothing and moves the pinned revision; one that changes
them (the image tag) re-rolls from step 1, and no later step receives the new revision before
every earlier step was available on it.

The daemon finds commits by polling git every `git.pollInterval` (1 s here)."""
import unittest

from daemon_harness import (DaemonEnv, appset_yaml, check_wave_order, object_key, wait_for)

STEPS = [["sim-0"], ["sim-1"], ["sim-2"]]


def pinned_revisions(env, appset):
    return {name: tuple(e.get("targetRevisions") or ())
            for name, e in env.app_statuses(appset).items()}


def synced_to(env, revision):
    return env.synced_to(revision, count=3)


class NewCommits(unittest.TestCase):
    def test_unchanged_render_writes_nothing_and_a_change_rerolls_in_order(self):
        env = DaemonEnv(clusters=3, poll_interval="1s")
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        env.wait_completed("guestbook", timeout=90)
        first = env.head()
        wait_for(lambda: synced_to(env, first), timeout=30,
                 what=lambda: "every app Synced+Healthy at " + first)
        before = env.applies()

        # A commit outside the apps' path: the pinned revision moves, nothing is written.
        with open(env.repo + "/README.md", "w") as f:
            f.write("not part of any app\n")
        second = env.commit("docs only", "README.md")
        wait_for(lambda: all(r == (second,) for r in pinned_revisions(env, "guestbook").values())
                 and synced_to(env, second), timeout=30,
                 what=lambda: "the pinned revision to move to %s; status %s\n%s"
                 % (second, pinned_revisions(env, "guestbook"), env.log_tail()))
        self.assertEqual(env.applies()[len(before):], [],
                         "a commit that renders the same objects caused writes")

        # A commit that changes the Deployment: re-rolled from step 1, in order.
        old_hash = {object_key(a): (a.get("annotations") or {}).get("fleetwave.io/applied-hash")
                    for a in before if a["resource"] == "deployments"}
        since = before[-1]["t"] + 0.0005
        third = env.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:0.3")
        env.wait_completed_at(third, "guestbook", timeout=90)

        applies = env.applies()
        after = [a for a in applies if a["t"] >= since]
        new_deployments = [a for a in after if a["resource"] == "deployments"]
        self.assertEqual(sorted(a["cluster"] for a in new_deployments),
                         ["sim-0", "sim-1", "sim-2"],
                         "each cluster's Deployment applied exactly once for the new image")
        for a in new_deployments:
            self.assertNotEqual((a.get("annotations") or {}).get("fleetwave.io/applied-hash"),
                                old_hash.get(object_key(a)),
                                "the re-roll wrote the old Deployment again")
        # Everything written since the change carries the new revision (the old rollout had
        # completed), so the wave order over those writes is the order of the new revision.
        violations = check_wave_order(applies, env.available_events(), STEPS, since=since)
        self.assertEqual(violations, [], "\n".join(violations))


if __name__ == "__main__":
    unittest.main()
