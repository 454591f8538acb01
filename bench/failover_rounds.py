#!/usr/bin/python3
"""Issue 28's failover acceptance as a bench: two `fleetwave run` on one etcd prefix (a real
etcd started here), the guestbook over five kubesim clusters in three RollingSync steps (dev
sim-0; qa sim-1..3 with maxUpdate 1; prod sim-4), and ROUNDS rollouts of a new image. In every
round one fault hits one instance (the leader or the standby) at a random point of the rollout
(once the first app of a random step was written); every 4 rounds hold each pairing of fault
and role once, in a random order:

  kill9    SIGKILL; the instance is started again once the round's takeover (if any) happened;
  sigstop  SIGSTOP until the other instance leads (a leader) or for lease + 1 s (a standby),
           then SIGCONT.

Each round is judged from kubesim's audit and events and the instances' APIs; a violation is
any of: the rollout did not finish at the new revision within --round-timeout; an apply before
the previous step's apps were available (wave order); more qa apps in flight than maxUpdate;
a write that repeats the object's live content (a duplicate apply); a takeover slower than the
lease + 3 s; a thawed instance that does not report standby or that writes to a cluster after
it thawed (kubesim audits each write's User-Agent, which names the instance); at the end of the
round not exactly one leader that both instances agree on.

Prints one row per round (action, target, takeover time, violations) and exits 1 when any round
had a violation (2 when the bench itself could not run). Seeded: the same --seed picks the same
faults at the same points. Reuses the e2e harness (tests/daemon/daemon_harness.py).

  bench/failover_rounds.py --build build-release [--rounds 10] [--seed 1] [--lease 3]
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "daemon"))

STEPS = [["sim-0"], ["sim-1", "sim-2", "sim-3"], ["sim-4"]]
MAX_UPDATES = [None, 1, None]
ENVS = ["env-dev", "env-qa", "env-qa", "env-qa", "env-prod"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build-release", help="build directory (fleetwave, kubesim)")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lease", type=int, default=3, help="leaseDuration in seconds (etcd: >= 2)")
    p.add_argument("--ready-ms", type=int, default=1500, help="kubesim's rollout time")
    p.add_argument("--round-timeout", type=float, default=180.0)
    p.add_argument("--time-limit", type=float, default=1800.0, help="the whole run's bound")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    return p.parse_args()


def main():
    args = parse_args()
    build = os.path.abspath(os.path.join(SOURCE_DIR, args.build)
                            if not os.path.isabs(args.build) else args.build)
    os.environ["FLEETWAVE"] = os.path.join(build, "tools", "fleetwave", "fleetwave")
    os.environ["KUBESIM"] = os.path.join(build, "tools", "kubesim", "kubesim")
    for binary in (os.environ["FLEETWAVE"], os.environ["KUBESIM"]):
        if not os.access(binary, os.X_OK):
            print("failover_rounds: %s is not built" % binary, file=sys.stderr)
            return 2
    if args.keep:
        os.environ["DAEMON_E2E_KEEP"] = "1"
    # After the environment is set: the harness reads FLEETWAVE and KUBESIM at import.
    from daemon_harness import (DaemonEnv, appset_yaml, check_max_update, check_wave_order,
                                repeated_applies, wait_for)
    from etcd_state_e2e_test import Etcd
    from leader_failover_e2e_test import leader_view, second_instance

    rng = random.Random(args.seed)
    # Every pairing of fault and role in every 4 rounds, in a seeded random order: a plain
    # random draw may never freeze a leader in 10 rounds, the case that matters most.
    plan = [(action, role) for action in ("kill9", "sigstop") for role in ("leader", "standby")]
    plan = [rng.sample(plan, len(plan)) for _ in range((args.rounds + 3) // 4)]
    plan = [pair for block in plan for pair in block][:args.rounds]
    started = time.monotonic()
    commit = subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print("failover_rounds: seed %d, %d rounds, lease %d s, kubesim --ready-ms %d, commit %s"
          % (args.seed, args.rounds, args.lease, args.ready_ms, commit), flush=True)

    etcd = Etcd(flags=["--max-txn-ops=1024"])
    a = DaemonEnv(clusters=len(ENVS), kubesim_args=("--ready-ms", str(args.ready_ms)),
                  state="etcd://127.0.0.1:%d/fleetwave" % etcd.port,
                  extra_config={"etcd": {"maxTxnOps": 1024}, "cacheDir": "cache-host-a",
                                "leaderElection": {"leaseDuration": "%ds" % args.lease,
                                                   "identity": "host-a"}})
    b = second_instance(a, "host-b")
    instances = {"host-a": a, "host-b": b}
    takeover_bound = args.lease + 3.0
    rows = []

    def leader_name():
        views = [leader_view(i) or {} for i in instances.values()]
        leaders = [v["self"] for v in views if v.get("isLeader")]
        agreed = {v.get("leader") for v in views}
        if len(leaders) == 1 and agreed == {leaders[0]}:
            return leaders[0]
        return None

    def writes_by(identity, applies):
        return [w for w in applies if "(%s)" % identity in (w.get("userAgent") or "")]

    try:
        a.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", a.elements(ENVS),
            steps=[(["env-dev"], None), (["env-qa"], MAX_UPDATES[1]), (["env-prod"], None)],
            repo_url=a.repo_url))
        a.start()
        wait_for(lambda: (leader_view(a) or {}).get("isLeader"), timeout=30, what="host-a leads")
        b.start()
        wait_for(lambda: leader_name() == "host-a", timeout=30, what="one leader, host-a")
        a.wait_completed_at(a.head(), "guestbook", timeout=args.round_timeout)

        for n in range(1, args.rounds + 1):
            if time.monotonic() - started > args.time_limit:
                rows.append((n, "-", "-", "-", "-", None, ["the run's time limit was reached"]))
                break
            violations = []
            leader = leader_name()
            if leader is None:
                rows.append((n, "-", "-", "-", "-", None, ["no single leader before the round"]))
                break
            action, role = plan[n - 1]
            step = rng.randrange(len(STEPS))
            target_name = leader if role == "leader" else \
                next(name for name in sorted(instances) if name != leader)
            target = instances[target_name]
            other = instances["host-b" if target_name == "host-a" else "host-a"]
            since = time.time()
            revision = a.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:r%d" % n)
            a.http("POST", "/api/v1/refresh", token=a.token)
            b.http("POST", "/api/v1/refresh", token=b.token)
            took = None
            thawed_at = None
            try:
                wait_for(lambda: any(w["t"] >= since for c in STEPS[step] for w in a.applies(c)),
                         timeout=args.round_timeout, interval=0.05,
                         what="round %d: a write to step %d" % (n, step + 1))
                hit = time.monotonic()
                if action == "kill9":
                    target.kill9()
                else:
                    target.proc.send_signal(signal.SIGSTOP)
                if role == "leader":
                    wait_for(lambda: (leader_view(other) or {}).get("isLeader"),
                             timeout=takeover_bound + 10, interval=0.05,
                             what="round %d: %s to take over" % (n, other_name(other, instances)))
                    took = time.monotonic() - hit
                    if took > takeover_bound:
                        violations.append("takeover %.2f s > lease + 3 s" % took)
                elif action == "sigstop":
                    # A standby frozen past a lease: nothing to take over; it must thaw quietly.
                    time.sleep(args.lease + 1.0)
                if action == "kill9":
                    target.start()
                else:
                    thawed_at = time.time()
                    target.proc.send_signal(signal.SIGCONT)
                    wait_for(lambda: (leader_view(target) or {}).get("isLeader") is False
                             and (leader_view(target) or {}).get("leader"),
                             timeout=15, what="round %d: the thawed %s to report standby"
                             % (n, target_name))
                leading = wait_for(leader_name, timeout=takeover_bound + 10,
                                   what="round %d: exactly one leader" % n)
                instances[leading].wait_completed_at(revision, "guestbook",
                                                     timeout=args.round_timeout)
            except AssertionError as e:
                violations.append(str(e).splitlines()[0][:200])
                if action == "sigstop" and target.proc.poll() is None:
                    target.proc.send_signal(signal.SIGCONT)
            applies = [w for w in a.applies() if w["t"] >= since]
            events = a.available_events()
            violations += check_wave_order(applies, events, STEPS)
            violations += check_max_update(applies, events, STEPS, MAX_UPDATES)
            violations += repeated_applies(applies)
            if sorted({w["cluster"] for w in applies}) != a.clusters:
                violations.append("written clusters %s" % sorted({w["cluster"] for w in applies}))
            if thawed_at is not None:
                late = [w for w in writes_by(target_name, applies) if w["t"] >= thawed_at]
                violations += ["%s wrote %s/%s on %s after it thawed"
                               % (target_name, w["resource"], w["name"], w["cluster"])
                               for w in late]
            rows.append((n, action, target_name, role, step + 1, took, violations))
            print_row(rows[-1])
            if violations and target.proc.poll() is not None:
                target.start()  # the next round needs both
    finally:
        for instance in (a, b):
            if instance.proc is not None and instance.proc.poll() is None:
                instance.proc.send_signal(signal.SIGCONT)
        try:
            b.stop()
        finally:
            try:
                a.close()
            finally:
                etcd.close()

    print_table(rows)
    bad = sum(1 for r in rows if r[-1])
    print("failover_rounds: %d of %d rounds with violations; %.0f s"
          % (bad, len(rows), time.monotonic() - started), flush=True)
    return 1 if bad or len(rows) < args.rounds else 0


def other_name(instance, instances):
    return next(name for name, i in instances.items() if i is instance)


def print_row(row):
    n, action, target, role, step, took, violations = row
    print("round %2d: %-7s %s (%s) at step %s: takeover %s, %d violations%s"
          % (n, action, target, role, step, "%.2f s" % took if took is not None else "-",
             len(violations), "".join("\n    " + v for v in violations)), flush=True)


def print_table(rows):
    print("\n| round | action | target | role | at step | takeover | violations |")
    print("|---|---|---|---|---|---|---|")
    for n, action, target, role, step, took, violations in rows:
        print("| %d | %s | %s | %s | %s | %s | %s |"
              % (n, action, target, role, step, "%.2f s" % took if took is not None else "-",
                 len(violations) if not violations else "; ".join(violations)))


if __name__ == "__main__":
    sys.exit(main())
