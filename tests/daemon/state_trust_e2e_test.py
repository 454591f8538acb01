"""Issue 30, "state you can trust", against `fleetwave run`: a pause is stored, then the state
database is damaged behind the daemon's back.

- Bytes overwritten in the middle of state.db: the daemon starts and keeps serving its API, but
  /readyz answers 503 with the reason, the API's `errors` names the database and SQLite's
  verdict, nothing is applied, and the problem is logged once, not at every retry.
- state.db emptied (0 bytes): the daemon refuses to start fresh, naming the database and its
  marker (state-id) and how to proceed; with --accept-empty-state it starts.
- A second daemon whose state directory holds a symlink to the first one's state.db refuses to
  start, naming the resolved database and the first daemon's pid."""
import json
import os
import re
import sqlite3
import subprocess
import time
import unittest

from daemon_harness import FLEETWAVE, DaemonEnv, appset_yaml, wait_for

import yaml


def rollout_of(env, name):
    return ((env.appset(name) or {}).get("status") or {}).get("rollout") or {}


def post(env, path):
    status, reply = env.http("POST", path, token=env.token)
    if status not in (200, 202):
        raise AssertionError("POST %s: HTTP %s %s" % (path, status, reply))


def start_unready(env, *extra):
    """Starts the daemon like DaemonEnv.start, but waits only for its API to listen."""
    env.starts += 1
    env.api = None
    with open(env.log_path, "a") as log:
        log.write("=== start %d ===\n" % env.starts)
        log.flush()
        env.proc = subprocess.Popen([FLEETWAVE, "run", "--config", env.config_path] + list(extra),
                                    stdout=log, stderr=log, stdin=subprocess.DEVNULL)

    def listening():
        if env.proc.poll() is not None:
            raise AssertionError("the daemon exited with %s; log:\n%s"
                                 % (env.proc.returncode, env.log_tail()))
        this_start = env.log().split("=== start %d ===" % env.starts, 1)[-1]
        m = re.search(r"api: listening on \S+ \(port (\d+)[,)]", this_start)
        if m:
            env.api = "http://127.0.0.1:%s" % m.group(1)
        return m
    wait_for(listening, timeout=30, what=lambda: "the API to listen; log:\n" + env.log_tail())


def run_refused(config_path, *extra):
    """`fleetwave run` that must exit by itself: returns (exit code, stderr)."""
    try:
        out = subprocess.run([FLEETWAVE, "run", "--config", config_path] + list(extra),
                             capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("the daemon started (still running after 30 s) instead of "
                             "refusing; its log:\n%s" % (e.stderr or b"").decode()[-3000:])
    return out.returncode, out.stderr


def corrupt_middle_page(db):
    """Overwrites one whole page in the middle of the file (not the header page)."""
    size = os.path.getsize(db)
    offset = max(4096, (size // 2 // 4096) * 4096)
    assert size >= offset + 4096, "state.db is only %d bytes" % size
    with open(db, "r+b") as f:
        f.seek(offset)
        f.write(os.urandom(4096))


def remove_wal(db):
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


class StateTrust(unittest.TestCase):
    def setUp(self):
        self.env = DaemonEnv(clusters=1)
        self.addCleanup(self.env.close)
        self.db = os.path.join(self.env.dir, "state.db")
        self.env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", self.env.elements(["env-dev"]), steps=[(["env-dev"], None)],
            repo_url=self.env.repo_url))

    def store_a_pause(self):
        env = self.env
        env.start()
        wait_for(lambda: rollout_of(env, "guestbook").get("generation"), timeout=30,
                 what=lambda: "the rollout to start\n" + env.log_tail())
        post(env, "/api/v1/applicationsets/guestbook/pause")
        wait_for(lambda: rollout_of(env, "guestbook").get("paused") is True, timeout=15,
                 what=lambda: "the pause to be stored\n" + env.log_tail())
        env.stop()  # a clean stop checkpoints the WAL into state.db
        self.assertFalse(os.path.exists(self.db + "-wal") and os.path.getsize(self.db + "-wal"),
                         "the WAL was not checkpointed at the stop")

    def test_corrupt_database_fails_readiness_and_says_why(self):
        env = self.env
        self.store_a_pause()
        applies_before = len(env.applies())
        corrupt_middle_page(self.db)
        start_unready(env)

        def not_ready():
            status, body = env.http("GET", "/readyz")
            return status == 503 and body
        body = wait_for(not_ready, timeout=30, what=lambda: "/readyz 503\n" + env.log_tail())
        self.assertIn("the state store cannot be used", body)
        self.assertIn(self.db, body)
        self.assertEqual(env.http("GET", "/healthz")[0], 200)  # alive, serving its API

        sets = env.get("/api/v1/applicationsets")
        entries = [e for e in sets["errors"] if e["file"] == self.db]
        self.assertEqual(len(entries), 1, sets["errors"])
        self.assertIn(self.db + ": quick_check found damage", entries[0]["message"])
        # Longer than the 5 s retry of every set: the test's input, not a synchronisation.
        time.sleep(6)
        this_start = env.log().split("=== start %d ===" % env.starts, 1)[-1]
        self.assertEqual(this_start.count("state: the store cannot be used"), 1, this_start)
        self.assertLessEqual(this_start.count("cannot use the stored state"), 1, this_start)
        self.assertEqual(len(env.applies()), applies_before, "applied with an unreadable store")
        self.assertEqual(env.http("GET", "/readyz")[0], 503)

    def test_wrong_typed_stored_value_is_an_error_on_its_set(self):
        env = self.env
        self.store_a_pause()
        db = sqlite3.connect(self.db)
        (value,) = db.execute("SELECT value FROM kv WHERE key = 'appsets/guestbook/rollout'"
                              ).fetchone()
        rollout = json.loads(value)
        rollout["paused"] = "yes"  # by hand: not "not paused"
        db.execute("UPDATE kv SET value = ? WHERE key = 'appsets/guestbook/rollout'",
                   (json.dumps(rollout),))
        db.commit()
        db.close()
        applies_before = len(env.applies())
        env.start()  # the store is fine: ready

        where = self.db + ":appsets/guestbook/"

        def shown():
            sets = env.get("/api/v1/applicationsets") or {}
            return [e for e in sets.get("errors", []) if e["file"] == where]
        entries = wait_for(shown, timeout=30, what=lambda: "the set's error\n" + env.log_tail())
        self.assertIn("status.rollout.paused: must be a boolean, not a string",
                      entries[0]["message"])
        self.assertEqual(len(env.applies()), applies_before, "decided on a default")

    def test_emptied_database_is_refused_unless_accepted(self):
        env = self.env
        self.store_a_pause()
        with open(self.db, "w"):
            pass  # 0 bytes
        remove_wal(self.db)
        code, err = run_refused(env.config_path)
        self.assertEqual(code, 1, err)
        self.assertIn(self.db + " is empty (0 bytes), but " + os.path.join(env.dir, "state-id"),
                      err)
        self.assertIn("--accept-empty-state", err)
        self.assertEqual(os.path.getsize(self.db), 0, "the refusal wrote to the database")

        start_unready(env, "--accept-empty-state")
        wait_for(lambda: env.http("GET", "/readyz")[0] == 200, timeout=30,
                 what=lambda: "ready with --accept-empty-state\n" + env.log_tail())
        self.assertIn("--accept-empty-state:", env.log())
        env.stop()
        env.start()  # the new identity is in both files: an ordinary start

    def test_second_daemon_on_a_symlinked_database_is_refused(self):
        env = self.env
        env.start()
        other = os.path.join(env.dir, "other-state")
        os.makedirs(other)
        os.symlink(self.db, os.path.join(other, "state.db"))
        with open(env.config_path) as f:
            config = yaml.safe_load(f)
        config["state"] = "sqlite://" + os.path.join(other, "state.db")
        other_config = os.path.join(env.config_dir, "other.yaml")
        with open(other_config, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)
        code, err = run_refused(other_config)
        self.assertEqual(code, 1, err)
        self.assertIn("another fleetwave (pid %d) holds the state database %s (configured as %s)"
                      % (env.proc.pid, os.path.realpath(self.db),
                         os.path.join(other, "state.db")), err)
        self.assertEqual(env.http("GET", "/readyz")[0], 200)  # the first one is unaffected


if __name__ == "__main__":
    unittest.main()
