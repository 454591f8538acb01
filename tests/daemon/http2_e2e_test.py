"""Issue 26's "one connection per cluster" against `fleetwave run`: kubesim (TLS) behind
nghttpx, which offers h2 by ALPN on one frontend port per cluster as separate API servers
would. The daemon multiplexes every request and watch of a cluster on one HTTP/2 connection:
the rollout completes, the responses came over HTTP/2 (fleetwave_cluster_responses_total), the
daemon holds at most 2 sockets per cluster (its established TCP connections to each frontend
port, from /proc), and re-opened watches reuse the connection
(fleetwave_cluster_connections_opened_total does not move). `clusterHttp2: false` turns it off.

nghttpx allows 100 concurrent streams per connection, kube-apiserver's default: the daemon
opens a handful of watches per cluster, far below it. Every wait is a bounded poll."""
import base64
import os
import random
import re
import shutil
import socket
import subprocess
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, wait_for

NGHTTPX = os.environ.get("NGHTTPX") or shutil.which("nghttpx") or "/usr/sbin/nghttpx"


def free_port():
    """A loopback port nobody listens on, outside the kernel's ephemeral range (32768-60999),
    so no outgoing connection of a test running beside this one takes it before nghttpx binds
    it (tests/free_port.h)."""
    for _ in range(200):
        port = random.randrange(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port")


def can_connect(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Nghttpx:
    """An HTTP/2 TLS reverse proxy: frontend port i is cluster i, every frontend goes to the
    one kubesim (prefix mode: the path names the cluster) over HTTP/1.1 + TLS."""

    def __init__(self, workdir, backend_port, clusters):
        self.dir = workdir
        self.cert = os.path.join(workdir, "nghttpx.crt")
        key = os.path.join(workdir, "nghttpx.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", self.cert],
                       check=True, capture_output=True, timeout=60)
        self.ports = [free_port() for _ in range(clusters)]
        self.log_path = os.path.join(workdir, "nghttpx.log")
        conf = ["frontend=127.0.0.1,%d" % p for p in self.ports] + [
            "backend=127.0.0.1,%d;;tls" % backend_port,
            "insecure=yes",  # the backend is kubesim with its own CA
            "no-ocsp=yes",
            "workers=1",
            "backend-read-timeout=1h",  # watches last minutes
            "frontend-http2-max-concurrent-streams=100",  # kube-apiserver's default
            "log-level=WARN",
            "errorlog-file=" + self.log_path,
            "private-key-file=" + key,
            "certificate-file=" + self.cert,
        ]
        conf_path = os.path.join(workdir, "nghttpx.conf")
        with open(conf_path, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.proc = subprocess.Popen([NGHTTPX, "--conf=" + conf_path],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.proc.poll() is not None or all(map(can_connect, self.ports)),
                 timeout=20, what="nghttpx's frontends")
        if self.proc.poll() is not None:
            raise AssertionError("nghttpx exited with %s; log:\n%s"
                                 % (self.proc.returncode, self.log()))

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Http2DaemonEnv(DaemonEnv):
    """The harness's daemon with every cluster reached through nghttpx: the kubeconfig's
    servers are the frontends, its CA nghttpx's certificate."""

    def __init__(self, clusters, extra_config=None):
        super().__init__(clusters=clusters, extra_config=extra_config)
        backend = int(re.match(r"https://127\.0\.0\.1:(\d+)", self.kubesim.base_url).group(1))
        self.kubesim_port = backend
        try:
            self.proxy = Nghttpx(self.dir, backend, clusters)
        except BaseException:
            self.kubesim.stop()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        path = os.path.join(self.config_dir, "kubeconfig")
        with open(path) as f:
            config = yaml.safe_load(f)
        with open(self.proxy.cert, "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        self.servers = {}
        for c in config["clusters"]:
            i = self.clusters.index(c["name"])
            server = re.sub(r"^https://127\.0\.0\.1:\d+",
                            "https://127.0.0.1:%d" % self.proxy.ports[i], c["cluster"]["server"])
            c["cluster"]["server"] = server
            c["cluster"]["certificate-authority-data"] = ca
            self.servers[c["name"]] = server
        with open(path, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)

    def url(self, cluster):
        return self.servers[cluster]

    def close(self):
        try:
            super().close()
        finally:
            self.proxy.stop()

    def connections_by_port(self):
        """The daemon's established outgoing TCP connections, counted by remote port (/proc)."""
        mine = self.tcp_sockets()
        # Connections it accepted (this test's scrapes and API calls) have a listening port
        # as their local one: not connections to a cluster.
        listening = {r[1].rsplit(":", 1)[1] for r in mine if r[3] == "0A"}
        out = {}
        for r in mine:
            if r[3] == "01" and r[1].rsplit(":", 1)[1] not in listening:  # ESTABLISHED, outgoing
                port = int(r[2].rsplit(":", 1)[1], 16)
                out[port] = out.get(port, 0) + 1
        return out

    def sample(self, name, labels=""):
        m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)),
                      self.metrics_text(), re.M)
        return float(m.group(1)) if m else None


class OneConnectionPerCluster(unittest.TestCase):
    def test_rollout_over_http2_with_at_most_two_sockets_per_cluster(self):
        env = Http2DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-a", "env-b", "env-c"]),
            steps=[(["env-a"], None), (["env-b"], None), (["env-c"], None)],
            repo_url=env.repo_url))
        env.start()
        env.wait_completed_at(env.head(), "guestbook", timeout=120)

        self.assertGreater(env.sample("fleetwave_cluster_responses_total", '{protocol="http2"}'),
                           0)
        self.assertEqual(env.sample("fleetwave_cluster_responses_total", '{protocol="http1"}'), 0)
        self.assert_sockets(env)
        # Every cluster's traffic went through its own frontend, none straight to kubesim.
        self.assertNotIn(env.kubesim_port, env.connections_by_port())

        # kubesim ends every watch of every cluster; the daemon re-opens them on the
        # connections it holds, and the next rollout (which needs the watches to see its
        # Deployments become available) completes without a new connection.
        opened = env.sample("fleetwave_cluster_connections_opened_total")
        self.assertGreaterEqual(opened, len(env.clusters))
        restarts = {c: self.watch_restarts(env, c) for c in env.clusters}
        for c in env.clusters:
            env.fault(c, dropWatches=True)
        wait_for(lambda: all(self.watch_restarts(env, c) > restarts[c] for c in env.clusters),
                 timeout=60, what=lambda: "re-opened watches on every cluster\n" + env.log_tail())
        revision = env.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:0.3")
        env.wait_completed_at(revision, "guestbook", timeout=120)
        self.assertEqual(env.sample("fleetwave_cluster_connections_opened_total"), opened,
                         env.log_tail())
        self.assert_sockets(env)

    def test_cluster_http2_false_speaks_http1(self):
        env = Http2DaemonEnv(clusters=1, extra_config={"clusterHttp2": False})
        self.addCleanup(env.close)
        env.start()
        wait_for(lambda: (env.sample("fleetwave_cluster_responses_total",
                                     '{protocol="http1"}') or 0) > 0,
                 timeout=60, what=lambda: "a response from sim-0\n" + env.log_tail())
        self.assertEqual(env.sample("fleetwave_cluster_responses_total", '{protocol="http2"}'), 0)

    def assert_sockets(self, env):
        by_port = env.connections_by_port()
        for cluster, port in zip(env.clusters, env.proxy.ports):
            self.assertIn(by_port.get(port, 0), (1, 2),
                          "%s (frontend port %d): %s" % (cluster, port, by_port))

    @staticmethod
    def watch_restarts(env, cluster):
        total = 0.0
        for m in re.finditer(r'^fleetwave_watch_restarts_total\{cluster="%s",[^}]*\} (\S+)$'
                             % re.escape(cluster), env.metrics_text(), re.M):
            total += float(m.group(1))
        return total


if __name__ == "__main__":
    unittest.main()
