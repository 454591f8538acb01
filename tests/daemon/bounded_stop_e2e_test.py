"""Issue 31, "bounded stop": SIGTERM ends `fleetwave run` within 10 s (fleetwave.service's
TimeoutStopSec is 20 s) even while a blocking job that cannot be interrupted runs, and the state
store is consistent afterwards.

The blocking job is the render of a kustomize path, whose `kubectl kustomize` child is a fake
that never finishes (the render waits for it up to its 60 s deadline): the longest render these
tests can make, and one a real cluster repository produces with a slow or wedged kubectl. Before
the fix the daemon joined the blocking pool without a bound and exited only when the child's
deadline passed."""
import os
import signal
import sqlite3
import stat
import time
import unittest

from daemon_harness import DaemonEnv, appset_yaml, wait_for

FAKE_KUBECTL = """#!/bin/sh
# A kubectl whose kustomize never finishes: says it started, then hangs.
echo $$ > "%(pidfile)s"
exec sleep 300
"""


class BoundedStop(unittest.TestCase):
    def test_sigterm_during_a_render_that_never_ends_exits_within_10s_store_consistent(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        fake_bin = os.path.join(env.dir, "fake-bin")
        os.makedirs(fake_bin)
        pidfile = os.path.join(env.dir, "kubectl.pid")
        kubectl = os.path.join(fake_bin, "kubectl")
        with open(kubectl, "w") as f:
            f.write(FAKE_KUBECTL % {"pidfile": pidfile})
        os.chmod(kubectl, stat.S_IRWXU)
        self.addCleanup(self._kill_fake, pidfile)
        # A kustomize path in the repository, for the set that will render forever.
        os.makedirs(os.path.join(env.repo, "slow"))
        with open(os.path.join(env.repo, "slow", "kustomization.yaml"), "w") as f:
            f.write("resources:\n  - ../guestbook/guestbook.yaml\n")
        env.commit("a kustomize path", "slow/kustomization.yaml")

        daemon_env = dict(os.environ, PATH=fake_bin + os.pathsep + os.environ.get("PATH", ""))
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa"]),
            steps=[(["env-dev"], None), (["env-qa"], None)], repo_url=env.repo_url))
        env.start(env=daemon_env)
        revision = env.head()
        env.wait_completed_at(revision, "guestbook", timeout=90)

        # The second set's render starts kubectl kustomize, which hangs.
        env.write_appset("slow.yaml", appset_yaml(
            "slow", env.elements(["env-dev", "env-qa"]), steps=[(["env-dev", "env-qa"], None)],
            path="slow", repo_url=env.repo_url))
        wait_for(lambda: os.path.exists(pidfile), timeout=30,
                 what=lambda: "the render to start kubectl kustomize; log:\n" + env.log_tail())

        sent = time.monotonic()
        env.proc.send_signal(signal.SIGTERM)
        try:
            code = env.proc.wait(15)
        except Exception:
            code = None
        took = time.monotonic() - sent
        self.assertIsNotNone(code, "SIGTERM did not end the daemon within 15 s; log:\n"
                             + env.log_tail())
        self.assertLess(took, 10.0, "SIGTERM took %.1f s; log:\n%s" % (took, env.log_tail()))
        self.assertEqual(code, 0)
        self.assertIn("abandoned: appset=slow", env.log())

        # The store: a whole database, and a restart continues from it (the first set's rollout
        # is still complete at its revision; its stored state is used).
        db = sqlite3.connect(os.path.join(env.dir, "state.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        finally:
            db.close()
        self._kill_fake(pidfile)
        os.remove(pidfile)
        env.start(env=daemon_env)
        env.wait_completed_at(revision, "guestbook", timeout=60)
        this_start = env.log().split("=== start 2 ===", 1)[-1]
        self.assertNotIn("cannot use the stored state", this_start)
        self.assertNotIn("state: the store cannot be used", this_start)

    @staticmethod
    def _kill_fake(pidfile):
        try:
            with open(pidfile) as f:
                os.kill(int(f.read().strip()), signal.SIGKILL)
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    unittest.main()
