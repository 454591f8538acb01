"""Acceptance 1 of issue 13: the guestbook ApplicationSet over dev/qa/prod clusters.

Judged from outside the daemon: kubesim's audit (what was written, when) and its controller
events (when each Deployment became available), plus the daemon's API for the manual gate.
"""
import os
import time
import unittest

from daemon_harness import DaemonEnv, appset_yaml, check_wave_order, parse_time, wait_for

DEV, QA, PROD = "sim-0", "sim-1", "sim-2"


class GuestbookRollout(unittest.TestCase):
    def test_waves_wait_for_available_and_the_manual_gate(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], 0), (["env-prod"], "10%")],
            repo_url=env.repo_url))
        env.start()

        # The maxUpdate: 0 step holds: dev is Healthy, step 2's app is Waiting, and nothing was
        # written to qa — and it stays so while the daemon re-decides (its reconciledAt moves on
        # by 2 s: an unchanged set re-decides every third poll, every 3 s with the 1 s poll).
        def gate_state():
            st = env.app_statuses("guestbook")
            dev, qa = st.get(DEV + "-guestbook"), st.get(QA + "-guestbook")
            app = env.application(QA + "-guestbook")
            if not (dev and qa and app and dev.get("status") == "Healthy"
                    and qa.get("status") == "Waiting"):
                return None
            self.assertEqual(env.applies(QA), [], "qa was written before the manual sync")
            return parse_time((app.get("status") or {}).get("reconciledAt", "1970-01-01T00:00:00Z"))

        first = wait_for(gate_state, timeout=60,
                         what=lambda: "dev Healthy and qa Waiting at the gate\n" + env.log_tail())
        wait_for(lambda: (gate_state() or 0) >= first + 2, timeout=30,
                 what=lambda: "a re-decision with the gate closed\n" + env.log_tail())
        self.assertEqual(env.applies(QA), [])
        self.assertEqual(env.applies(PROD), [])

        synced_at = time.time()
        env.sync(QA + "-guestbook")
        env.wait_completed("guestbook", timeout=90)

        applies = env.applies()
        events = env.available_events()
        for cluster in (DEV, QA, PROD):
            self.assertTrue([a for a in applies if a["cluster"] == cluster],
                            "nothing applied to " + cluster)
        # kubesim's clock is the wall clock of this machine (ms resolution).
        self.assertGreaterEqual(min(a["t"] for a in applies if a["cluster"] == QA),
                                synced_at - 0.01, "qa applied before POST .../sync")
        violations = check_wave_order(applies, events, [[DEV], [QA], [PROD]])
        self.assertEqual(violations, [], "\n".join(violations))

    def test_the_cluster_io_thread_runs_above_the_background_threads(self):
        env = DaemonEnv(clusters=1)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev"]), steps=[(["env-dev"], None)],
            repo_url=env.repo_url))
        env.start()
        nices = env.thread_nices()
        base = os.getpriority(os.PRIO_PROCESS, env.proc.pid)  # the main thread's
        by_name = {}
        for name, nice in nices:
            by_name.setdefault(name, []).append(nice)
        self.assertEqual(by_name.get("fw-cluster-io"), [base], nices)
        self.assertEqual(by_name.get("fw-pool"), [min(19, base + 10)] * 4, nices)
        # CAF's threads (scheduler workers and its clock) carry the process's name.
        lowered = [n for name, n in nices if name not in ("fw-cluster-io", "fw-pool")
                   and n == min(19, base + 10)]
        self.assertGreaterEqual(len(lowered), 2, nices)


if __name__ == "__main__":
    unittest.main()
