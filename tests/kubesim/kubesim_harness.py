"""Starts a kubesim for a test and talks to it: kubectl, raw HTTPS, the admin clock.

kubesim binds port 0 and prints one ready line once it listens and has written the kubeconfig,
so tests wait on that line (with a deadline) instead of sleeping.
"""
import json
import os
import select
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import yaml

KUBESIM = os.environ.get("KUBESIM", "kubesim")
KUBECTL = os.environ.get("KUBECTL") or "/usr/bin/kubectl"


def wait_for(predicate, timeout=20.0, interval=0.05, what="condition"):
    """Polls `predicate` until it returns a truthy value or the deadline passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(interval)


class Kubesim:
    def __init__(self, *extra, clusters=2, tls=True):
        self.dir = tempfile.mkdtemp(prefix="kubesim-test-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.cache = os.path.join(self.dir, "kubectl-cache")
        self.log_path = os.path.join(self.dir, "kubesim.log")
        args = [KUBESIM, "--clusters", str(clusters), "--listen", "127.0.0.1:0",
                "--kubeconfig-out", self.kubeconfig, "--seed", "7"]
        if tls:
            args.append("--tls")
        args += list(extra)
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._log, text=True)
        self.ready_line = self._await_ready(20.0)
        # "kubesim ready: https://127.0.0.1:PORT clusters=N ..."
        self.base_url = self.ready_line.split()[2]
        with open(self.kubeconfig) as f:
            self.config = yaml.safe_load(f)
        self.ssl_context = None
        if tls:
            ca_b64 = self.config["clusters"][0]["cluster"]["certificate-authority-data"]
            import base64
            self.ca_pem = base64.b64decode(ca_b64).decode()
            self.ca_file = os.path.join(self.dir, "ca.pem")
            with open(self.ca_file, "w") as f:
                f.write(self.ca_pem)
            self.ssl_context = ssl.create_default_context(cadata=self.ca_pem)

    def _await_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.proc.stdout], [], [], deadline - time.monotonic())
            if not readable:
                continue
            line = self.proc.stdout.readline()
            if not line:
                self.stop()
                raise RuntimeError("kubesim exited before it was ready; see its log")
            if line.startswith("kubesim ready"):
                return line.strip()
        self.stop()
        raise RuntimeError("kubesim did not become ready within %.0fs" % timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._log.close()
        if os.environ.get("KUBESIM_KEEP_LOGS"):
            print("kubesim log kept in", self.log_path)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    # --- clients -----------------------------------------------------------------------------

    def server(self, cluster="sim-0"):
        for c in self.config["clusters"]:
            if c["name"] == cluster:
                return c["cluster"]["server"]
        raise KeyError(cluster)

    def token(self, cluster="sim-0"):
        for u in self.config["users"]:
            if u["name"] == cluster:
                return u["user"]["token"]
        raise KeyError(cluster)

    def kubectl(self, *args, context="sim-0", check=True, input=None, timeout=60):
        cmd = [KUBECTL, "--kubeconfig", self.kubeconfig, "--context", context,
               "--cache-dir", self.cache] + list(args)
        result = subprocess.run(cmd, input=input, capture_output=True, text=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError("%s failed (%d):\n%s%s" % (" ".join(args), result.returncode,
                                                           result.stdout, result.stderr))
        return result

    def kubectl_popen(self, *args, context="sim-0"):
        cmd = [KUBECTL, "--kubeconfig", self.kubeconfig, "--context", context,
               "--cache-dir", self.cache] + list(args)
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def request(self, method, path, body=None, cluster="sim-0", token=None,
                content_type="application/json"):
        """Raw HTTP(S) request to a cluster path; returns (status, decoded JSON or text)."""
        url = self.server(cluster) + path
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            data = data.encode() if isinstance(data, str) else data
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + (token if token is not None
                                                      else self.token(cluster)))
        if data is not None:
            req.add_header("Content-Type", content_type)
        return self._send(req)

    def admin(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        return self._send(req)

    def advance(self, duration):
        status, body = self.admin("POST", "/kubesim/clock", {"advance": duration})
        if status != 200:
            raise AssertionError("clock advance failed: %s %s" % (status, body))
        return body

    def _send(self, req):
        try:
            with urllib.request.urlopen(req, context=self.ssl_context, timeout=30) as resp:
                raw = resp.read().decode()
                status = resp.status
        except urllib.error.HTTPError as e:
            raw = e.read().decode()
            status = e.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw
