"""Issue 30's TLS acceptance against `fleetwave run`: with `tls: {certFile, keyFile}` in
fleetwave.yaml both listeners serve TLS only. `curl --cacert` reaches /healthz, the API and
/metrics; plain HTTP to either listener fails and is never answered; a Host that names another
site is 421. The CA and the server certificate are made with `openssl` in the test's directory."""
import os
import re
import subprocess
import unittest

import yaml

from daemon_harness import FLEETWAVE, DaemonEnv, wait_for


def sh(*args, check=True):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60, check=check)


class TlsDaemonEnv(DaemonEnv):
    """The harness's daemon with a tls block; readiness is probed with curl over TLS."""

    def __init__(self, client_ca=False):
        super().__init__(clusters=1)
        d = self.config_dir
        sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
           "-subj", "/CN=e2e-ca", "-keyout", os.path.join(d, "ca.key"),
           "-out", os.path.join(d, "ca.crt"))
        with open(os.path.join(d, "san.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=fleetwave",
           "-keyout", os.path.join(d, "tls.key"), "-out", os.path.join(d, "tls.csr"))
        sh("openssl", "x509", "-req", "-in", os.path.join(d, "tls.csr"),
           "-CA", os.path.join(d, "ca.crt"), "-CAkey", os.path.join(d, "ca.key"),
           "-CAcreateserial", "-days", "2", "-extfile", os.path.join(d, "san.ext"),
           "-out", os.path.join(d, "tls.crt"))
        with open(self.config_path) as f:
            config = yaml.safe_load(f)
        # Relative to fleetwave.yaml's directory, as users write them.
        config["tls"] = {"certFile": "tls.crt", "keyFile": "tls.key"}
        self.client_cert = self.client_key = None
        if client_ca:
            # Client certificates signed by the same CA; the daemon requires one.
            config["tls"]["clientCAFile"] = "ca.crt"
            self.client_key = os.path.join(d, "client.key")
            self.client_cert = os.path.join(d, "client.crt")
            sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=operator",
               "-keyout", self.client_key, "-out", os.path.join(d, "client.csr"))
            sh("openssl", "x509", "-req", "-in", os.path.join(d, "client.csr"),
               "-CA", os.path.join(d, "ca.crt"), "-CAkey", os.path.join(d, "ca.key"),
               "-CAcreateserial", "-days", "2", "-out", self.client_cert)
        with open(self.config_path, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)
        self.ca = os.path.join(d, "ca.crt")
        self.api_port = None

    def _ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("the daemon exited with %s; log:\n%s"
                                 % (self.proc.returncode, self.log_tail()))
        if self.api_port is None:
            this_start = self.log().split("=== start %d ===" % self.starts, 1)[-1]
            m = re.search(r"api: listening on \S+ \(port (\d+), TLS[^)]*\)", this_start)
            if not m:
                return False
            self.api_port = int(m.group(1))
            self.api = "https://127.0.0.1:%d" % self.api_port
        return self.curl(self.api_port, "/readyz").stdout == "ok\n"

    def curl(self, port, path, scheme="https", host=None):
        args = ["curl", "-sS", "--max-time", "5", "--cacert", self.ca]
        if self.client_cert:
            args += ["--cert", self.client_cert, "--key", self.client_key]
        if host:
            args += ["-H", "Host: " + host]
        return sh(*args, "%s://127.0.0.1:%d%s" % (scheme, port, path), check=False)


class TlsListeners(unittest.TestCase):
    def test_both_listeners_serve_tls_only(self):
        env = TlsDaemonEnv()
        self.addCleanup(env.close)
        env.start()
        metrics_port = env.metrics_port()
        self.assertIn("metrics: listening on 127.0.0.1:0 (port %d, TLS)" % metrics_port,
                      env.log())

        health = env.curl(env.api_port, "/healthz")
        self.assertEqual((health.returncode, health.stdout), (0, "ok\n"), health.stderr)
        sets = env.curl(env.api_port, "/api/v1/applicationsets")
        self.assertEqual(sets.returncode, 0, sets.stderr)
        self.assertIn('"kind":"ApplicationSetList"', sets.stdout)
        scrape = env.curl(metrics_port, "/metrics")
        self.assertEqual(scrape.returncode, 0, scrape.stderr)
        self.assertIn("fleetwave_build_info{", scrape.stdout)

        # Plain HTTP to either listener: the TLS handshake fails, nothing is served.
        for port in (env.api_port, metrics_port):
            plain = env.curl(port, "/healthz", scheme="http")
            self.assertNotEqual(plain.returncode, 0, plain.stdout)
            self.assertNotIn("ok", plain.stdout)

        # DNS rebinding: a Host that names another site is refused.
        rebound = env.curl(env.api_port, "/api/v1/applicationsets", host="evil.example")
        self.assertIn('"code":421', rebound.stdout)
        wait_for(lambda: "refused (421)" in env.log(), timeout=5, what="the 421 in the log")

    def test_the_cli_reaches_a_daemon_that_wants_a_client_certificate(self):
        env = TlsDaemonEnv(client_ca=True)
        self.addCleanup(env.close)
        env.start()
        server = "https://127.0.0.1:%d" % env.api_port

        def cli(*extra, environ=None):
            return subprocess.run([FLEETWAVE, "get", "appsets", "--server", server, *extra],
                                  capture_output=True, text=True, timeout=30,
                                  env=dict(os.environ, **(environ or {})))

        ok = cli("--cacert", env.ca, "--cert", env.client_cert, "--key", env.client_key)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        # The daemon answered (it has no sets: kubectl's wording for an empty list).
        self.assertIn("No resources found.", ok.stderr)
        # The same through the environment, as a shell profile would set it.
        via_env = cli(environ={"FLEETWAVE_CACERT": env.ca, "FLEETWAVE_CERT": env.client_cert,
                               "FLEETWAVE_KEY": env.client_key})
        self.assertEqual(via_env.returncode, 0, via_env.stderr)

        untrusted = cli("--cert", env.client_cert, "--key", env.client_key)
        self.assertNotEqual(untrusted.returncode, 0)
        self.assertIn("--cacert", untrusted.stderr)
        no_cert = cli("--cacert", env.ca)
        self.assertNotEqual(no_cert.returncode, 0, no_cert.stdout)
        half = cli("--cacert", env.ca, "--cert", env.client_cert)
        self.assertNotEqual(half.returncode, 0)
        self.assertIn("needs both --cert F and --key F", half.stderr)


if __name__ == "__main__":
    unittest.main()
