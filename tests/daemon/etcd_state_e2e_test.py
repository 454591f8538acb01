"""`fleetwave run` with its state in etcd (issue 28, store part): a real etcd started here on
free loopback ports, the guestbook rollout over three kubesim clusters, the daemon killed -9
mid-rollout and restarted on the same etcd prefix: the rollout completes in wave order, and the
state is in etcd under the prefix (nothing written to a local state file)."""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

from daemon_harness import DaemonEnv, appset_yaml, check_wave_order, wait_for

STEPS = [["sim-0"], ["sim-1"], ["sim-2"]]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Etcd:
    """One etcd member in a temporary directory; ready when a range call is answered."""

    def __init__(self, flags=()):
        self.dir = tempfile.mkdtemp(prefix="fleetwave-etcd-")
        self.port, peer = free_port(), free_port()
        client = "http://127.0.0.1:%d" % self.port
        peer_url = "http://127.0.0.1:%d" % peer
        self.proc = subprocess.Popen(
            ["etcd", "--name=e2e", "--data-dir=" + os.path.join(self.dir, "data"),
             "--listen-client-urls=" + client, "--advertise-client-urls=" + client,
             "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
             "--initial-cluster=e2e=" + peer_url, "--logger=zap",
             "--log-outputs=" + os.path.join(self.dir, "etcd.log")] + list(flags),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._ready, timeout=60, what="etcd answering on port %d" % self.port)

    def _ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("etcd exited with %s" % self.proc.returncode)
        try:
            self.range("ready")
            return True
        except OSError:
            return False

    def range(self, key, prefix=False, revision=None):
        """`revision`: the keys as they were at that etcd revision (default: now)."""
        body = {"key": base64.b64encode(key.encode()).decode()}
        if revision is not None:
            body["revision"] = str(revision)
        if prefix:
            end = key[:-1] + chr(ord(key[-1]) + 1)
            body["range_end"] = base64.b64encode(end.encode()).decode()
        req = urllib.request.Request("http://127.0.0.1:%d/v3/kv/range" % self.port,
                                     data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    def close(self):
        self.proc.kill()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class EtcdState(unittest.TestCase):
    def test_rollout_survives_a_kill_with_the_state_in_etcd(self):
        # The daemon's batches (one put per changed app, six deletes per app of a deleted set)
        # outgrow etcd's default 128 operations in a real fleet: the documented setting.
        etcd = Etcd(flags=["--max-txn-ops=1024"])
        self.addCleanup(etcd.close)
        env = DaemonEnv(clusters=3, kubesim_args=("--ready-ms", "1500"),
                        state="etcd://127.0.0.1:%d/fleetwave" % etcd.port,
                        extra_config={"etcd": {"maxTxnOps": 1024},
                                      "cacheDir": "cache"})
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        self.assertIn("new state prefix", env.log())
        # Killed once the first wave was applied, before the rollout is done.
        wait_for(lambda: env.applies("sim-0"), timeout=60,
                 what=lambda: "the first wave applied\n" + env.log_tail())
        self.assertFalse(env.rollout_completed("guestbook"))
        env.kill9()
        env.start()
        self.assertNotIn("new state prefix", env.log().split("=== start 2 ===", 1)[-1])
        env.wait_completed_at(env.head(), "guestbook", timeout=180)

        applies = env.applies()
        self.assertEqual(sorted({a["cluster"] for a in applies}), env.clusters)
        violations = check_wave_order(applies, env.available_events(), STEPS)
        self.assertEqual(violations, [], "\n".join(violations))
        stored = etcd.range("/fleetwave/kv/", prefix=True)
        keys = [base64.b64decode(kv["key"]).decode() for kv in stored.get("kvs", [])]
        self.assertTrue([k for k in keys if k.startswith("/fleetwave/kv/appsets/guestbook/")],
                        keys)
        self.assertFalse(os.path.exists(os.path.join(env.dir, "state.db")))


if __name__ == "__main__":
    unittest.main()
