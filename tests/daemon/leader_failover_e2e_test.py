"""Leader election (issue 28, failover): two `fleetwave run` on one etcd prefix (a real etcd
started here), the guestbook rollout over five kubesim clusters in three steps: dev (sim-0), qa
(sim-1..3, maxUpdate 1, so the limit binds) and prod (sim-4).

- Exactly one leader: both instances' GET /api/v1/leader name the same one, and the standby
  refuses a mutation with 503 naming it.
- The leader killed -9 mid-rollout (in the qa step, once its first app was promoted): the
  standby leads within leaseDuration + 3 s, and the rollout finishes from the committed state
  with the wave order held, never more than one qa app promoted and not yet available
  (maxUpdate), and no duplicate apply (kubesim's audit: no write repeats the content of the
  object's previous write; `available` events for the Deployments).
- The leader frozen (SIGSTOP) past its lease: the standby takes over; thawed (SIGCONT), the
  former leader reports standby and sends no write to any cluster (kubesim audits each write's
  User-Agent, which names the instance: "fleetwave/... (host-a)"),
  and still no write repeats content (its store batches are fenced, its cluster writes pass
  a fence that expired with its lease, and it stopped its coordinator)."""
import base64
import copy
import os
import re
import signal
import sys
import time
import unittest

import yaml

from daemon_harness import (DaemonEnv, appset_yaml, check_max_update, check_wave_order,
                            repeated_applies, wait_for)
from etcd_state_e2e_test import Etcd

STEPS = [["sim-0"], ["sim-1", "sim-2", "sim-3"], ["sim-4"]]
MAX_UPDATES = [None, 1, None]
LEASE = 3  # seconds: etcd's minimum is 2
TAKEOVER_BOUND = LEASE + 3.0



def second_instance(env, identity):
    """Another `fleetwave run` beside `env`'s: the same kubesim, repository, ApplicationSet
    directory and etcd prefix, its own config file (identity, cache), log and API port."""
    other = copy.copy(env)
    with open(env.config_path) as f:
        config = yaml.safe_load(f)
    config["leaderElection"] = dict(config["leaderElection"], identity=identity)
    config["cacheDir"] = "cache-" + identity
    other.config_path = os.path.join(env.config_dir, "fleetwave-%s.yaml" % identity)
    with open(other.config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    other.log_path = os.path.join(env.dir, "daemon-%s.log" % identity)
    other.proc, other.api, other.starts = None, None, 0
    return other


def leader_view(instance):
    status, body = instance.http("GET", "/api/v1/leader")
    return body if status == 200 and isinstance(body, dict) else None


def writes_by(identity, applies):
    """The audited writes the instance `identity` sent (its User-Agent names it)."""
    return [a for a in applies if "(%s)" % identity in (a.get("userAgent") or "")]


def metric(instance, name):
    for line in instance.metrics_text().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


class LeaderFailover(unittest.TestCase):
    def setUp(self):
        self.etcd = Etcd(flags=["--max-txn-ops=1024"])
        self.addCleanup(self.etcd.close)
        self.a = DaemonEnv(clusters=5, kubesim_args=("--ready-ms", "1500"),
                           state="etcd://127.0.0.1:%d/fleetwave" % self.etcd.port,
                           extra_config={"etcd": {"maxTxnOps": 1024}, "cacheDir": "cache-a",
                                         "leaderElection": {"leaseDuration": "%ds" % LEASE,
                                                            "identity": "host-a"}})
        self.addCleanup(self.a.close)  # last: stops kubesim and removes the directory
        self.b = second_instance(self.a, "host-b")
        self.addCleanup(self.b.stop)
        self.addCleanup(self._stop_frozen)
        self.a.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", self.a.elements(["env-dev", "env-qa", "env-qa", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], MAX_UPDATES[1]), (["env-prod"], None)],
            repo_url=self.a.repo_url))

    def _stop_frozen(self):
        # A test that fails while `a` is stopped must not leave it frozen.
        if self.a.proc is not None and self.a.proc.poll() is None:
            self.a.proc.send_signal(signal.SIGCONT)

    def start_both(self):
        """`a` first, so it leads; then `b`, a standby. Both views agree on one leader."""
        self.a.start()
        wait_for(lambda: (leader_view(self.a) or {}).get("isLeader"), timeout=15,
                 what=lambda: "host-a to lead\n" + self.a.log_tail())
        self.b.start()
        wait_for(lambda: (leader_view(self.b) or {}).get("leader") == "host-a", timeout=15,
                 what=lambda: "host-b to see host-a lead: %s\n%s"
                 % (leader_view(self.b), self.b.log_tail()))
        self.assertEqual(leader_view(self.a),
                         {"leader": "host-a", "self": "host-a", "isLeader": True})
        self.assertEqual(leader_view(self.b),
                         {"leader": "host-a", "self": "host-b", "isLeader": False})
        # The standby changes nothing and says who does.
        status, body = self.b.http("POST", "/api/v1/applicationsets/guestbook/pause",
                                   token=self.b.token)
        self.assertEqual(status, 503, body)
        self.assertEqual(body.get("leader"), "host-a", body)
        self.assertEqual(metric(self.a, "fleetwave_leader"), 1)
        self.assertEqual(metric(self.b, "fleetwave_leader"), 0)

    def wait_qa_step_started(self):
        """Until the first app of the qa step (maxUpdate 1) was promoted: the leader stops in
        the middle of the step whose limit the takeover must keep."""
        wait_for(lambda: any(self.a.applies(c) for c in STEPS[1]), timeout=90,
                 what=lambda: "the qa step to start\n" + self.a.log_tail())
        self.assertFalse(self.a.rollout_completed("guestbook"))

    def wait_takeover(self, since):
        wait_for(lambda: (leader_view(self.b) or {}).get("isLeader"), timeout=TAKEOVER_BOUND + 5,
                 interval=0.05, what=lambda: "host-b to lead\n" + self.b.log_tail())
        took = time.monotonic() - since
        print("leader_failover: host-b led %.2f s after host-a stopped (lease %d s)"
              % (took, LEASE), file=sys.stderr)
        self.assertLessEqual(took, TAKEOVER_BOUND, "takeover slower than the lease + 3 s")

    def stored_before_term_of_leader(self):
        """The stored values (text) as they were just before the current leader's term began:
        its term is its leader key's create_revision (store/etcd_leader.h)."""
        leader = self.etcd.range("/fleetwave/meta/leader")["kvs"][0]
        at = int(leader["create_revision"]) - 1
        kvs = self.etcd.range("/fleetwave/kv/", prefix=True, revision=at).get("kvs", [])
        return [base64.b64decode(kv.get("value", "")).decode() for kv in kvs]

    def check_rollout(self):
        self.b.wait_completed_at(self.b.head(), "guestbook", timeout=180)
        applies = self.b.applies()
        self.assertEqual(sorted({a["cluster"] for a in applies}), self.b.clusters)
        events = self.b.available_events()
        violations = (check_wave_order(applies, events, STEPS)
                      + check_max_update(applies, events, STEPS, MAX_UPDATES))
        self.assertEqual(violations, [], "\n".join(violations))
        repeats = repeated_applies(applies)
        self.assertEqual(repeats, [], "\n".join(repeats))

    def test_kill9_of_the_leader_mid_rollout(self):
        self.start_both()
        self.wait_qa_step_started()
        self.a.kill9()
        self.wait_takeover(time.monotonic())
        self.check_rollout()
        self.assertEqual(metric(self.b, "fleetwave_leader"), 1)
        self.assertEqual(metric(self.b, "fleetwave_leader_changes_total"), 1)
        # Both wrote: host-a before the kill, host-b after its takeover.
        self.assertTrue(writes_by("host-a", self.b.applies()))
        self.assertTrue(writes_by("host-b", self.b.applies()))

    def test_a_frozen_leader_thaws_as_a_standby_and_writes_nothing(self):
        self.start_both()
        self.wait_qa_step_started()
        frozen_at = time.time()
        self.a.proc.send_signal(signal.SIGSTOP)
        self.wait_takeover(time.monotonic())
        # Frozen past its lease (the takeover proves etcd expired it); now thawed.
        before_thaw = len(self.a.log().splitlines())
        # Writes host-a sent just before the freeze may reach kubesim a little later; from the
        # thaw on, seconds later, any write of host-a's would be one sent after it.
        thawed_at = time.time()
        self.a.proc.send_signal(signal.SIGCONT)
        print("leader_failover: host-a frozen at %.3f, thawed at %.3f (wall clock)"
              % (frozen_at, thawed_at), file=sys.stderr)
        wait_for(lambda: leader_view(self.a) == {"leader": "host-b", "self": "host-a",
                                                 "isLeader": False},
                 timeout=10, what=lambda: "host-a to report standby: %s\n%s"
                 % (leader_view(self.a), self.a.log_tail()))
        self.assertIn("leader: stepping down to standby", self.a.log())
        # Thawed, it decides nothing once its deciding work stopped (its log says what it would
        # have done). Before that, it may still log the end of what it had in flight at the
        # freeze: each decision is logged after etcd committed its batch, and a batch sent
        # before the freeze commits within the term while its answer is read after the thaw
        # (e.g. "sync ... Succeeded"). What it starts from there is fenced - its batches by
        # etcd, its cluster writes by the write fence (judged from the audit below).
        thawed = self.a.log().splitlines()[before_thaw:]
        stopped = [i for i, line in enumerate(thawed)
                   if "leader: standby; the coordinator of the ended term stopped" in line]
        self.assertTrue(stopped, "host-a's deciding work stopped after the thaw:\n"
                        + "\n".join(thawed))

        def decisions(lines):
            return [line for line in lines
                    if any(w in line for w in ("applying", "sync started", "promoted",
                                               "deleting", "step ", "Succeeded"))]
        in_flight = decisions(thawed[:stopped[0]])
        if in_flight:
            print("leader_failover: host-a, thawed, reported work of its term:\n"
                  + "\n".join(in_flight), file=sys.stderr)
        # A sync's end it reports was in etcd before host-b's term began.
        ended = [m.group(1) for m in (re.search(r" sync (\S+) Succeeded", line)
                                      for line in in_flight) if m]
        if ended:
            before_b = self.stored_before_term_of_leader()
            for op in ended:
                self.assertTrue(any(op in v and "Succeeded" in v for v in before_b),
                                "host-a reported sync %s Succeeded after its thaw, and it was not "
                                "stored before host-b's term" % op)
        acted = decisions(thawed[stopped[0]:])
        self.assertEqual(acted, [], "\n".join(acted))
        self.assertEqual(metric(self.a, "fleetwave_leader"), 0)
        self.assertEqual(metric(self.a, "fleetwave_leader_changes_total"), 2)
        status, body = self.a.http("POST", "/api/v1/applicationsets/guestbook/pause",
                                   token=self.a.token)
        self.assertEqual((status, body.get("leader")), (503, "host-b"), body)
        self.check_rollout()
        applies = self.b.applies()
        self.assertTrue(writes_by("host-a", applies), "host-a's writes are told apart")
        late = ["%s %s/%s at %s" % (w["cluster"], w["resource"], w["name"], w["time"])
                for w in writes_by("host-a", applies) if w["t"] >= thawed_at]
        self.assertEqual(late, [], "host-a wrote after it thawed")
        self.assertTrue([w for w in writes_by("host-b", applies) if w["t"] >= thawed_at])


if __name__ == "__main__":
    unittest.main()
