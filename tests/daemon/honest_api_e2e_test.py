"""Issue 31, "honest answers": a mutation of the API answers with what will happen. A sync the
daemon cannot carry out now is answered 409 (an operation already runs) or 503 (its cluster is
unreachable) with the reason, never 202 followed by a refusal in the log only; a 202 names the
operation, which the API shows from that answer on until it ends. Pause and resume say whether
they changed anything; a DELETE of a set a file defines is 409 naming the file; and a file's
error leaves the API's `errors` once the file is removed."""
import os
import unittest

from daemon_harness import DaemonEnv, appset_yaml, wait_for


class HonestApi(unittest.TestCase):
    def setUp(self):
        self.env = DaemonEnv(clusters=2)
        self.addCleanup(self.env.close)
        self.env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", self.env.elements(["env-dev", "env-qa"]),
            steps=[(["env-dev", "env-qa"], None)], repo_url=self.env.repo_url))
        self.env.start()
        self.env.wait_completed_at(self.env.head(), "guestbook", timeout=90)

    def post(self, path, body=None):
        return self.env.http("POST", path, token=self.env.token, body=body)

    def operation(self, app):
        status = (self.env.application(app) or {}).get("status") or {}
        return status.get("operationState") or {}

    def test_a_sync_is_answered_with_what_happens(self):
        env = self.env
        # A second commit first, so a sync back to the first one has objects to apply. (Before
        # any manual sync: a commit landing in the same second as a manual sync's end is a
        # rollout race of its own, recorded in docs/benchmarks.md "Session 8".)
        first = env.head()
        second = env.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:0.3")
        env.wait_completed_at(second, "guestbook", timeout=90)
        # Accepted: 202 naming the operation, which the API shows at once.
        code, body = self.post("/api/v1/applications/sim-0-guestbook/sync")
        self.assertEqual(code, 202, body)
        op = self.operation("sim-0-guestbook")
        self.assertTrue(op.get("id"), "the accepted sync is not in the API: %s" % op)
        self.assertIn(op["id"], body["message"])
        wait_for(lambda: self.operation("sim-0-guestbook").get("phase") == "Succeeded",
                 timeout=60, what=lambda: "the sync to end: %s" % self.operation("sim-0-guestbook"))

        # An operation still running: a second sync is a conflict. The sync goes back to the
        # first commit, so it has objects to apply, and every request of sim-0 waits 3 s.
        env.fault("sim-0", latencyMs=3000)
        code, body = self.post("/api/v1/applications/sim-0-guestbook/sync", {"revision": first})
        self.assertEqual(code, 202, body)
        code, body = self.post("/api/v1/applications/sim-0-guestbook/sync")
        self.assertEqual(code, 409, body)
        self.assertIn("already running", body["message"])
        env.clear_faults("sim-0")

        # The cluster is unreachable: not now, with the reason.
        env.fault("sim-1", down=True)
        wait_for(lambda: any(c["name"] == "sim-1" and not c["up"]
                             for c in (env.get("/api/v1/clusters") or {}).get("items", [])),
                 timeout=60, what="sim-1 to be marked down")
        code, body = self.post("/api/v1/applications/sim-1-guestbook/sync")
        self.assertEqual(code, 503, body)
        self.assertIn("sim-1 is unreachable", body["message"])
        self.assertIn("sim-1-guestbook", body["message"])
        self.assertEqual(self.operation("sim-1-guestbook").get("phase"), "Succeeded",
                         "a refused sync changed the app's operation")

    def test_pause_resume_and_delete_say_what_they_did(self):
        code, body = self.post("/api/v1/applicationsets/guestbook/pause")
        self.assertEqual(code, 202, body)
        self.assertTrue(((self.env.appset("guestbook") or {}).get("status") or {})
                        .get("rollout", {}).get("paused"),
                        "the accepted pause is not in the API")
        code, body = self.post("/api/v1/applicationsets/guestbook/pause")
        self.assertEqual(code, 200, body)
        self.assertIn("already paused", body["message"])
        code, body = self.post("/api/v1/applicationsets/guestbook/resume")
        self.assertEqual(code, 202, body)
        code, body = self.env.http("DELETE", "/api/v1/applicationsets/guestbook",
                                   token=self.env.token)
        self.assertEqual(code, 409, body)
        self.assertIn("guestbook.yaml", body["message"])

    def test_a_removed_files_error_leaves_the_list(self):
        env = self.env

        def error_files():
            body = env.appsets() or {}
            return [e.get("file") for e in body.get("errors") or []]

        broken = os.path.join(env.appsets_dir, "broken.yaml")
        env.write_appset("broken.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: [\n")
        wait_for(lambda: broken in error_files(), timeout=30,
                 what=lambda: "broken.yaml in errors: %s" % error_files())
        os.remove(broken)
        wait_for(lambda: broken not in error_files(), timeout=30,
                 what=lambda: "broken.yaml to leave errors: %s" % error_files())


if __name__ == "__main__":
    unittest.main()
