"""Issue 27's acceptance: `fleetwave run` reads remote repositories. The test serves the
harness's repository on loopback two ways - lighttpd + git http-backend over HTTPS with basic
auth (a CA the test makes), and sshd with a key and a pinned host key - and one set reads it
over each. With a 10-minute poll interval, a signed GitHub push payload rolls a new commit
out at once; a wrong signature is refused and refreshes nothing; a wrong password keeps the
last fetched commit and names the repository. No secret appears in the daemon's log, API,
metrics or state database.

lighttpd, lighttpd-mod-openssl and openssh-server come from scripts/install-deps.sh; without
them this test fails, it is never skipped. Every wait is a bounded poll on a condition."""
import hashlib
import hmac
import json
import os
import pwd
import socket
import ssl
import subprocess
import unittest
import urllib.error
import urllib.request

import yaml

from daemon_harness import DaemonEnv, appset_yaml, git, wait_for

PASSWORD = "e2e-git-password-5521"
WEBHOOK_SECRET = "e2e-webhook-secret-7781"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def run(*args, cwd=None):
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)


class Servers:
    """lighttpd (HTTPS, basic auth) and sshd on loopback serving <dir>/repos/repo.git."""

    def __init__(self, root):
        self.dir = os.path.join(root, "servers")
        os.makedirs(os.path.join(self.dir, "repos"))
        os.makedirs(os.path.join(self.dir, "www"))
        self.bare = os.path.join(self.dir, "repos", "repo.git")
        self.https_port = free_port()
        self.ssh_port = free_port()
        self.procs = []
        d = self.dir
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        run("openssl", "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=fleetwave-e2e-ca", cwd=d)
        run("openssl", "req", "-new", *ec, "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1", cwd=d)
        with open(os.path.join(d, "ext.cnf"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
        with open(os.path.join(d, "users"), "w") as f:
            f.write("deploy:%s\n" % PASSWORD)
        with open(os.path.join(d, "lighttpd.conf"), "w") as f:
            f.write("\n".join([
                'server.modules = ("mod_openssl", "mod_auth", "mod_authn_file", "mod_alias", '
                '"mod_cgi", "mod_setenv", "mod_accesslog")',
                'accesslog.filename = "%s/access.log"' % d,
                'server.document-root = "%s/www"' % d,
                'server.bind = "127.0.0.1"',
                "server.port = %d" % self.https_port,
                'server.errorlog = "%s/lighttpd-error.log"' % d,
                'ssl.engine = "enable"',
                'ssl.pemfile = "%s/server.pem"' % d,
                'ssl.privkey = "%s/server.key"' % d,
                'alias.url = ("/git" => "/usr/lib/git-core/git-http-backend")',
                'cgi.assign = ("" => "")',
                'setenv.set-environment = ("GIT_PROJECT_ROOT" => "%s/repos", '
                '"GIT_HTTP_EXPORT_ALL" => "1")' % d,
                'auth.backend = "plain"',
                'auth.backend.plain.userfile = "%s/users"' % d,
                'auth.require = ("/git" => ("method" => "basic", "realm" => "git", '
                '"require" => "valid-user"))', ""]))
        for name in ("host_key", "client_key"):
            run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f",
                os.path.join(d, name))
        with open(os.path.join(d, "client_key.pub")) as f:
            pub = f.read()
        with open(os.path.join(d, "authorized_keys"), "w") as f:
            f.write(pub)
        os.chmod(os.path.join(d, "authorized_keys"), 0o600)
        with open(os.path.join(d, "host_key.pub")) as f:
            host = " ".join(f.read().split()[:2])
        with open(os.path.join(d, "known_hosts"), "w") as f:
            f.write("[127.0.0.1]:%d %s\n" % (self.ssh_port, host))
        with open(os.path.join(d, "sshd_config"), "w") as f:
            f.write("\n".join([
                "Port %d" % self.ssh_port, "ListenAddress 127.0.0.1",
                "HostKey %s/host_key" % d, "AuthorizedKeysFile %s/authorized_keys" % d,
                "PidFile none", "UsePAM no", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password",
                "StrictModes no", ""]))
        os.makedirs("/run/sshd", exist_ok=True)

    def start(self):
        self.start_https()
        self.start_ssh()

    def _start(self, name, argv, port):
        out = open(os.path.join(self.dir, name + ".out"), "a")
        proc = subprocess.Popen(argv, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        out.close()
        self.procs.append(proc)
        setattr(self, name, proc)
        wait_for(lambda: proc.poll() is None and accepts(port), timeout=20,
                 what="%s listening on %d" % (argv[0], port))

    def start_https(self):
        self._start("lighttpd", ["/usr/sbin/lighttpd", "-D", "-f", self.dir + "/lighttpd.conf"],
                    self.https_port)

    def start_ssh(self):
        self._start("sshd", ["/usr/sbin/sshd", "-D", "-e", "-f", self.dir + "/sshd_config"],
                    self.ssh_port)

    def stop_https(self):
        """The HTTPS server goes away: its port refuses connections until start_https()."""
        self.lighttpd.terminate()
        self.lighttpd.wait(10)
        wait_for(lambda: not accepts(self.https_port), timeout=10,
                 what="lighttpd's port closed")

    def _access_log(self):
        try:
            with open(os.path.join(self.dir, "access.log")) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def git_requests(self):
        """(ref listings, fetches) the HTTPS server answered with 200 so far, from its access
        log: a listing is GET .../info/refs?service=git-upload-pack, a fetch (objects sent) is
        POST .../git-upload-pack (libgit2 speaks protocol v0: a listing is one GET). libgit2's
        first request of a connection gets 401 (basic auth is sent once asked for) and is not
        counted. lighttpd writes its access log every few seconds: a request for a marker
        path goes last, and the log is read once the marker is in it, so every request
        answered before is counted."""
        self._markers = getattr(self, "_markers", 0) + 1
        marker = "/fleetwave-e2e-marker-%d" % self._markers
        context = ssl.create_default_context(cafile=os.path.join(self.dir, "ca.pem"))
        try:
            urllib.request.urlopen("https://127.0.0.1:%d%s" % (self.https_port, marker),
                                   context=context, timeout=10)
        except urllib.error.HTTPError:
            pass  # 404: only its log line matters
        wait_for(lambda: any(marker in line for line in self._access_log()), timeout=20,
                 what="lighttpd's access log flushed up to " + marker)
        listings = fetches = 0
        for line in self._access_log():
            request, _, rest = line.partition('" ')
            status = rest.split(" ", 1)[0]
            if status != "200":
                continue
            if "GET " in request and "/info/refs?service=git-upload-pack" in request:
                listings += 1
            elif "POST " in request and request.split(" ")[-2].endswith("/git-upload-pack"):
                fetches += 1
        return listings, fetches

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                p.wait(10)

    def https_url(self):
        return "https://127.0.0.1:%d/git/repo.git" % self.https_port

    def ssh_url(self):
        return "ssh://%s@127.0.0.1:%d%s" % (pwd.getpwuid(os.getuid()).pw_name, self.ssh_port,
                                            self.bare)


class RemoteBase(unittest.TestCase):
    """A daemon (10-minute poll interval) configured for both servers, which serve a bare
    clone of the harness's repository ("served" is its remote)."""

    def setUp(self):
        self.env = DaemonEnv(clusters=2, poll_interval="10m")
        self.addCleanup(self.env.close)
        self.servers = Servers(self.env.dir)
        self.addCleanup(self.servers.close)
        git(self.env.repo, "clone", "-q", "--bare", self.env.repo, self.servers.bare)
        git(self.env.repo, "remote", "add", "served", self.servers.bare)
        self.servers.start()
        cfg_dir = self.env.config_dir
        with open(os.path.join(cfg_dir, "git-password"), "w") as f:
            f.write(PASSWORD + "\n")
        with open(os.path.join(cfg_dir, "webhook-secret"), "w") as f:
            f.write(WEBHOOK_SECRET + "\n")
        with open(self.env.config_path) as f:
            config = yaml.safe_load(f)
        config["repositories"] = [
            {"url": "https://127.0.0.1:%d/git/" % self.servers.https_port, "username": "deploy",
             "passwordFile": "git-password", "caFile": self.servers.dir + "/ca.pem"},
            {"url": "ssh://127.0.0.1:%d/" % self.servers.ssh_port,
             "sshPrivateKeyFile": self.servers.dir + "/client_key",
             "knownHostsFile": self.servers.dir + "/known_hosts"},
        ]
        config["webhook"] = {"secretFile": "webhook-secret"}
        with open(self.env.config_path, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)

    def push(self, image):
        revision = self.env.set_manifest(image=image)
        git(self.env.repo, "push", "-q", "-f", "served", "HEAD:main")
        return revision

    def webhook(self, secret, body):
        raw = json.dumps(body).encode()
        signature = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
        req = urllib.request.Request(self.env.api + "/api/v1/webhook", data=raw, method="POST",
                                     headers={"X-GitHub-Event": "push",
                                              "X-Hub-Signature-256": signature,
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def pinned(self, name):
        return {tuple(e.get("targetRevisions") or ())
                for e in self.env.app_statuses(name).values()}

    def error_condition(self, name):
        """The set's ErrorOccurred condition, or None."""
        for c in ((self.env.appset(name) or {}).get("status") or {}).get("conditions") or []:
            if c.get("type") == "ErrorOccurred":
                return c
        return None


class RemoteRepositories(RemoteBase):
    def test_https_and_ssh_roll_out_a_webhook_refreshes_and_nothing_leaks(self):
        env = self.env
        steps = [(["env-dev"], None), (["env-prod"], None)]
        env.write_appset("over-https.yaml", appset_yaml(
            "over-https", env.elements(["env-dev", "env-prod"]), steps=steps,
            repo_url=self.servers.https_url()))
        env.write_appset("over-ssh.yaml", appset_yaml(
            "over-ssh", env.elements(["env-dev", "env-prod"]), steps=steps,
            repo_url=self.servers.ssh_url()))
        env.start()
        first = env.head()
        env.wait_completed("over-https", timeout=90)
        env.wait_completed("over-ssh", timeout=90)
        wait_for(lambda: env.synced_to(first, count=4), timeout=30,
                 what=lambda: "all apps Synced at %s\n%s" % (first, env.log_tail()))

        payload = {"ref": "refs/heads/main",
                   "repository": {"html_url": "https://127.0.0.1:%d/git/repo"
                                  % self.servers.https_port,
                                  "clone_url": self.servers.https_url(),
                                  "default_branch": "main"}}
        # A wrong signature refreshes nothing (the poll interval is 10 minutes).
        second = self.push("gcr.io/heptio-images/ks-guestbook-demo:0.3")
        status, body = self.webhook("not-the-secret", payload)
        self.assertEqual(status, 401, body)
        # A signed push: the https set follows it at once (within 5 s), the ssh set (another
        # URL of the same repository, not named by the payload) does not need to.
        status, body = self.webhook(WEBHOOK_SECRET, payload)
        self.assertEqual(status, 202, body)
        self.assertIn("over-https", body)
        # The first step's apps are pinned to the new commit at once (the later step's follow
        # when their turn comes).
        wait_for(lambda: (second,) in self.pinned("over-https"), timeout=5, interval=0.05,
                 what=lambda: "over-https pinned to %s: %s\n%s"
                 % (second, self.pinned("over-https"), env.log_tail()))
        wait_for(lambda: env.rollout_completed("over-https")
                 and self.pinned("over-https") == {(second,)},
                 timeout=90, what=lambda: "over-https rolled out at %s: %s\n%s"
                 % (second, self.pinned("over-https"), env.log_tail()))

        # A wrong password: the https set keeps its commit, the error names the repository.
        with open(os.path.join(env.config_dir, "git-password"), "w") as f:
            f.write("wrong-password-0000\n")
        self.push("gcr.io/heptio-images/ks-guestbook-demo:0.4")
        status, body = self.webhook(WEBHOOK_SECRET, payload)
        self.assertEqual(status, 202, body)
        # Its Applications say why (the source error names the repository and the reason),
        # and nothing is deleted: every app is still there, pinned to the last good commit.
        def failure_shown():
            shown = json.dumps([a for a in env.applications()
                                if a["metadata"]["name"].endswith("-over-https")])
            return "authentication failed" in shown and self.servers.https_url() in shown
        wait_for(failure_shown, timeout=10,
                 what=lambda: "the failed fetch, naming the repository, on the apps\n%s\n%s"
                 % (json.dumps(env.applications()), env.log_tail()))
        self.assertEqual(self.pinned("over-https"), {(second,)})
        self.assertEqual(len(env.applications()), 4)
        # And so does the set (remote_git_failures_e2e_test.py covers the other failures).
        condition = self.error_condition("over-https")
        self.assertIsNotNone(condition, json.dumps(env.appset("over-https")))
        self.assertEqual(condition["reason"], "RepositoryUnavailable")
        self.assertIn(self.servers.https_url(), condition["message"])
        self.assertIn("authentication failed", condition["message"])

        # Metrics count the fetches by result, per normalised URL.
        metrics = env.metrics_text()
        self.assertIn('fleetwave_git_fetch_total{repo="https://127.0.0.1:%d/git/repo",'
                      'result="failed"}' % self.servers.https_port, metrics)
        self.assertIn("fleetwave_git_last_success_timestamp_seconds", metrics)

        # No secret anywhere: log, API, metrics, state database, mirrors' configs.
        _, appsets = env.http("GET", "/api/v1/applicationsets")
        _, apps = env.http("GET", "/api/v1/applications")
        db = b""
        for name in os.listdir(env.dir):
            if name.startswith("state.db"):
                with open(os.path.join(env.dir, name), "rb") as f:
                    db += f.read()
        for secret in (PASSWORD, WEBHOOK_SECRET, "wrong-password-0000"):
            self.assertNotIn(secret, env.log())
            self.assertNotIn(secret, json.dumps(appsets))
            self.assertNotIn(secret, json.dumps(apps))
            self.assertNotIn(secret, metrics)
            self.assertNotIn(secret.encode(), db)
        env.stop()


if __name__ == "__main__":
    unittest.main()
