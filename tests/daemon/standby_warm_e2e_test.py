"""Leader election (issue 28): what a standby serves and what it keeps warm. Two `fleetwave run`
on one etcd prefix (a real etcd started here), the guestbook rollout over five kubesim clusters
in three steps as in leader_failover_e2e_test.py: dev (sim-0), qa (sim-1..3, maxUpdate 1) and
prod (sim-4); kubesim audits the clients' LISTs too (--audit-lists), each with its User-Agent,
which names the instance.

- While the leader rolls out, the standby's GET /api/v1/applicationsets/guestbook shows the
  leader's committed rollout: the same current step and the same status entry (status, step) for
  every app as the leader's own answer, and says where it comes from (X-Fleetwave-Served-By:
  standby ..., X-Fleetwave-State-Revision, "sharedState" with the set's store revision); the
  set's fleet summary follows from it. Its mutations are still refused with 503 naming the
  leader.
- The standby listed the clusters' watched resources while it stood by, so when the leader is
  killed -9 mid-rollout the standby's takeover sends no LIST at all: kubesim's audit holds no
  LIST from host-b after the kill (it could only lead after it). The rollout still finishes with
  the wave order, maxUpdate and no duplicate apply."""
import os
import re
import subprocess
import sys
import time
import unittest
import urllib.request

from daemon_harness import (FLEETWAVE, DaemonEnv, appset_yaml, check_max_update,
                            check_wave_order, parse_time, repeated_applies, wait_for)
from etcd_state_e2e_test import Etcd
from leader_failover_e2e_test import (LEASE, MAX_UPDATES, STEPS, TAKEOVER_BOUND, leader_view,
                                      second_instance)


def rollout_view(appset):
    """(current step, {app: (status, step)}) of a set's JSON; None without one."""
    if not isinstance(appset, dict):
        return None
    status = appset.get("status") or {}
    entries = {e.get("application"): (e.get("status"), e.get("step"))
               for e in status.get("applicationStatus") or []}
    return ((status.get("rollout") or {}).get("step"), entries)


def get_with_headers(instance, path):
    with urllib.request.urlopen(instance.api + path, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read().decode()


class StandbyWarm(unittest.TestCase):
    def setUp(self):
        self.etcd = Etcd(flags=["--max-txn-ops=1024"])
        self.addCleanup(self.etcd.close)
        self.a = DaemonEnv(clusters=5, kubesim_args=("--ready-ms", "1500", "--audit-lists"),
                           state="etcd://127.0.0.1:%d/fleetwave" % self.etcd.port,
                           extra_config={"etcd": {"maxTxnOps": 1024}, "cacheDir": "cache-a",
                                         "leaderElection": {"leaseDuration": "%ds" % LEASE,
                                                            "identity": "host-a"}})
        self.addCleanup(self.a.close)  # last: stops kubesim and removes the directory
        self.b = second_instance(self.a, "host-b")
        self.addCleanup(self.b.stop)
        self.a.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", self.a.elements(["env-dev", "env-qa", "env-qa", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], MAX_UPDATES[1]), (["env-prod"], None)],
            repo_url=self.a.repo_url))

    def lists_by(self, identity):
        out = []
        for a in self.a.audit():
            if a.get("verb") == "list" and "(%s)" % identity in (a.get("userAgent") or ""):
                a["t"] = parse_time(a["time"])
                out.append(a)
        return out

    def test_the_standby_serves_the_leaders_rollout_and_takes_over_without_listing(self):
        self.a.start()
        wait_for(lambda: (leader_view(self.a) or {}).get("isLeader"), timeout=15,
                 what=lambda: "host-a to lead\n" + self.a.log_tail())
        self.b.start()
        wait_for(lambda: (leader_view(self.b) or {}).get("leader") == "host-a", timeout=15,
                 what=lambda: "host-b to see host-a lead\n" + self.b.log_tail())

        # The leader's rollout, as the standby serves it: equal to the leader's own answer at a
        # moment the leader's did not change around the standby's read, in the qa step.
        seen = {}

        def standby_shows_the_leaders_rollout():
            before = rollout_view(self.a.appset("guestbook"))
            standby = rollout_view(self.b.appset("guestbook"))
            after = rollout_view(self.a.appset("guestbook"))
            seen["last"] = (before, standby)
            return (before is not None and before == after == standby
                    and before[0] == 2 and len(before[1]) == 5)
        wait_for(standby_shows_the_leaders_rollout, timeout=120, interval=0.1,
                 what=lambda: "the standby to show the leader's qa step: leader, standby = %s\n%s"
                 % (seen.get("last"), self.b.log_tail()))
        self.assertFalse(self.a.rollout_completed("guestbook"))
        status, headers, body = get_with_headers(self.b, "/api/v1/applicationsets/guestbook")
        self.assertEqual(status, 200)
        self.assertIn("standby host-b (leader host-a)", headers.get("X-Fleetwave-Served-By", ""))
        self.assertGreater(int(headers.get("X-Fleetwave-State-Revision", "0")), 0, headers)
        shared = self.b.appset("guestbook").get("sharedState") or {}
        self.assertEqual(shared.get("source"), "etcd")
        self.assertGreater(shared.get("revision", 0), 0)
        # The fleet view's summary of the set, derived from the same shared state.
        summary = self.b.get("/api/v1/applicationsets/guestbook/summary") or {}
        self.assertGreaterEqual(summary.get("currentStep", 0), 2, summary)
        self.assertEqual(summary.get("total"), 5, summary)
        self.assertEqual(summary.get("strategy"), "RollingSync", summary)
        # `fleetwave get` against the standby: the leader's step (2 of 3, or later by now).
        out = subprocess.run([FLEETWAVE, "get", "appset", "guestbook"], capture_output=True,
                             text=True, timeout=30,
                             env=dict(os.environ, FLEETWAVE_SERVER=self.b.api, NO_COLOR="1"))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertTrue(re.search(r"^guestbook\s+RollingSync\s+[23]/3\s", out.stdout, re.M),
                        out.stdout)
        status, headers, _ = get_with_headers(self.a, "/api/v1/applicationsets/guestbook")
        self.assertNotIn("X-Fleetwave-Served-By", headers, "the leader serves its own board")
        status, body = self.b.http("POST", "/api/v1/applicationsets/guestbook/pause",
                                   token=self.b.token)
        self.assertEqual((status, body.get("leader")), (503, "host-a"), body)

        # Warm: host-b listed the watched resources while it stood by, the Deployments
        # fleetwave applies among them, on every cluster.
        wait_for(lambda: {l["cluster"] for l in self.lists_by("host-b")
                          if l.get("resource") == "deployments"} >= set(self.a.clusters),
                 timeout=30, what=lambda: "host-b to list the Deployments of every cluster: %s"
                 % sorted({(l["cluster"], l["resource"]) for l in self.lists_by("host-b")}))
        wait_for(lambda: any(self.a.applies(c) for c in STEPS[1]), timeout=90,
                 what=lambda: "the qa step to start\n" + self.a.log_tail())
        listed_before = self.lists_by("host-b")
        killed_at = time.time()
        self.a.kill9()
        since = time.monotonic()
        wait_for(lambda: (leader_view(self.b) or {}).get("isLeader"), timeout=TAKEOVER_BOUND + 5,
                 interval=0.05, what=lambda: "host-b to lead\n" + self.b.log_tail())
        print("standby_warm: host-b led %.2f s after host-a was killed"
              % (time.monotonic() - since), file=sys.stderr)

        self.b.wait_completed_at(self.b.head(), "guestbook", timeout=180)
        applies = self.b.applies()
        events = self.b.available_events()
        violations = (check_wave_order(applies, events, STEPS)
                      + check_max_update(applies, events, STEPS, MAX_UPDATES))
        self.assertEqual(violations, [], "\n".join(violations))
        repeats = repeated_applies(applies)
        self.assertEqual(repeats, [], "\n".join(repeats))
        self.assertTrue([a for a in applies if "(host-b)" in (a.get("userAgent") or "")],
                        "host-b carried the rollout on")
        late = ["%s %s at %s" % (l["cluster"], l["resource"], l["time"])
                for l in self.lists_by("host-b") if l["t"] >= killed_at]
        self.assertEqual(late, [], "host-b listed again after it took over")
        self.assertTrue(listed_before)
        status, headers, _ = get_with_headers(self.b, "/api/v1/applicationsets/guestbook")
        self.assertNotIn("X-Fleetwave-Served-By", headers, "the new leader serves its own board")


if __name__ == "__main__":
    unittest.main()
