"""Issue 27's failure cases against real servers on loopback (remote_git_e2e_test.py's lighttpd
over HTTPS with basic auth and sshd with a pinned host key): a wrong password, the HTTPS server
down then back, a wrong host key, a force-push that removes the pinned commit and a deleted
branch each set the set's ErrorOccurred condition (in the API and `fleetwave get appset`),
naming the repository URL and the reason; nothing is deleted, the apps keep their last fetched
commit, and the next fetch that succeeds (a token file rotated while running, the server back)
clears it and the rollout resumes. Two sets on one repository fetch a new commit once, and a
poll of an unchanged remote costs one ref listing and no fetch (counted in lighttpd's access
log and fleetwave_git_fetch_total). No secret appears in the log, API, CLI, metrics or state
database.

The poll interval is 10 minutes: every fetch here is asked for (a webhook or POST
/api/v1/refresh) and every wait is a bounded poll on a condition."""
import json
import os
import re
import subprocess
import unittest

import yaml

from daemon_harness import FLEETWAVE, appset_yaml, git, wait_for
from remote_git_e2e_test import PASSWORD, WEBHOOK_SECRET, RemoteBase, run

WRONG_PASSWORD = "wrong-password-0000"
STEPS = [(["env-dev"], None), (["env-prod"], None)]


def fetch_total(metrics, repo, result):
    m = re.search(r'^fleetwave_git_fetch_total\{repo="%s",result="%s"\} (\S+)$'
                  % (re.escape(repo), result), metrics, re.M)
    return float(m.group(1)) if m else 0.0


class RemoteFailures(RemoteBase):
    def refresh(self):
        status, body = self.env.http("POST", "/api/v1/refresh", token=self.env.token)
        self.assertIn(status, (200, 202), body)

    def cli_get(self, name):
        out = subprocess.run([FLEETWAVE, "get", "appset", name], capture_output=True, text=True,
                             env=dict(os.environ, FLEETWAVE_SERVER=self.env.api, NO_COLOR="1"),
                             timeout=30)
        return out.stdout + out.stderr

    def wait_error(self, name, reason, *words):
        """The set's ErrorOccurred is True with `reason` and a message holding every word."""
        def shown():
            c = self.error_condition(name)
            return (c is not None and c.get("status") == "True" and c.get("reason") == reason
                    and all(w in c.get("message", "") for w in words))
        wait_for(shown, timeout=30, interval=0.1,
                 what=lambda: "%s ErrorOccurred %s naming %s: %s\n%s"
                 % (name, reason, words, json.dumps(self.error_condition(name)),
                    self.env.log_tail()))
        return self.error_condition(name)

    def wait_cleared(self, name):
        wait_for(lambda: self.error_condition(name) is None, timeout=30, interval=0.1,
                 what=lambda: "%s's ErrorOccurred cleared: %s\n%s"
                 % (name, json.dumps(self.error_condition(name)), self.env.log_tail()))

    def set_at(self, name, revision):
        """`name`'s rollout completed with each of its apps pinned, Synced and Healthy at
        `revision` (DaemonEnv.wait_completed_at judges every app of every set)."""
        apps = [a for a in self.env.applications()
                if a["metadata"]["name"].endswith("-" + name)]
        return (self.env.rollout_completed(name) and len(apps) == 2
                and self.pinned(name) == {(revision,)}
                and all((a.get("status") or {}).get("sync", {}).get("revision") == revision
                        and (a.get("status") or {}).get("sync", {}).get("status") == "Synced"
                        and (a.get("status") or {}).get("health", {}).get("status") == "Healthy"
                        for a in apps))

    def wait_set_at(self, name, revision):
        wait_for(lambda: self.set_at(name, revision), timeout=90, interval=0.1,
                 what=lambda: "%s rolled out at %s: %s\n%s"
                 % (name, revision, json.dumps(self.env.appset(name)), self.env.log_tail()))

    def deletes(self):
        return [a for a in self.env.audit()
                if str(a.get("verb", "")).lower() == "delete"]

    def assert_nothing_deleted(self, name, pinned_at):
        self.assertEqual(len([a for a in self.env.applications()
                              if a["metadata"]["name"].endswith("-" + name)]), 2)
        self.assertEqual(self.pinned(name), {(pinned_at,)})
        self.assertEqual(self.deletes(), [])

    def test_each_failure_shows_on_the_set_deletes_nothing_and_clears(self):
        env, servers = self.env, self.servers
        env.write_appset("over-https.yaml", appset_yaml(
            "over-https", env.elements(["env-dev", "env-prod"]), steps=STEPS,
            repo_url=servers.https_url()))
        env.write_appset("over-ssh.yaml", appset_yaml(
            "over-ssh", env.elements(["env-dev", "env-prod"]), steps=STEPS,
            repo_url=servers.ssh_url()))
        # A set on a branch that will be deleted.
        git(env.repo, "push", "-q", "served", "HEAD:release")
        doc = yaml.safe_load(appset_yaml("on-release", env.elements(["env-dev", "env-prod"]),
                                         steps=STEPS, repo_url=servers.https_url()))
        doc["spec"]["template"]["spec"]["source"]["targetRevision"] = "release"
        env.write_appset("on-release.yaml", yaml.safe_dump(doc, sort_keys=False))
        env.start()
        first = env.head()
        for name in ("over-https", "over-ssh", "on-release"):
            env.wait_completed(name, timeout=120)
        wait_for(lambda: env.synced_to(first, count=6), timeout=60,
                 what=lambda: "all apps Synced at %s\n%s" % (first, env.log_tail()))
        url = servers.https_url()

        # 1. A wrong password: the https sets keep their commit and say why.
        with open(os.path.join(env.config_dir, "git-password"), "w") as f:
            f.write(WRONG_PASSWORD + "\n")
        second = self.push("gcr.io/heptio-images/ks-guestbook-demo:0.3")
        self.refresh()
        c = self.wait_error("over-https", "RepositoryUnavailable", url, "authentication failed")
        self.assertNotIn(WRONG_PASSWORD, c["message"])
        self.assert_nothing_deleted("over-https", first)
        shown = self.cli_get("over-https")
        self.assertIn("Error", shown)
        self.assertIn(url, shown)
        self.assertIn("authentication failed", shown)
        self.assertIsNone(self.error_condition("over-ssh"))  # another repository URL

        # 2. The token file rotated while running: the next fetch uses it, the condition goes
        # and the rollout resumes at the new commit.
        with open(os.path.join(env.config_dir, "git-password"), "w") as f:
            f.write(PASSWORD + "\n")
        self.refresh()
        self.wait_cleared("over-https")
        self.assertIn("appset=over-https ErrorOccurred=True RepositoryUnavailable: " + url,
                      env.log())
        self.assertIn("appset=over-https ErrorOccurred cleared: its repositories read again",
                      env.log())
        self.wait_set_at("over-https", second)

        # 3. The server down: "cannot fetch" naming the repository, nothing deleted; back: the
        # rollout resumes.
        servers.stop_https()
        third = self.push("gcr.io/heptio-images/ks-guestbook-demo:0.4")
        self.refresh()
        self.wait_error("over-https", "RepositoryUnavailable", url, "cannot fetch")
        self.assert_nothing_deleted("over-https", second)
        servers.start_https()
        self.refresh()
        self.wait_cleared("over-https")
        self.wait_set_at("over-https", third)

        # 4. A wrong host key: refused, naming the host; the right one back clears it.
        known_hosts = os.path.join(servers.dir, "known_hosts")
        with open(known_hosts) as f:
            good = f.read()
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "other", "-f",
            os.path.join(servers.dir, "other_host_key"))
        with open(os.path.join(servers.dir, "other_host_key.pub")) as f:
            other = " ".join(f.read().split()[:2])
        with open(known_hosts, "w") as f:
            f.write("[127.0.0.1]:%d %s\n" % (servers.ssh_port, other))
        self.refresh()
        self.wait_error("over-ssh", "RepositoryUnavailable", servers.ssh_url(),
                        "[127.0.0.1]:%d" % servers.ssh_port, "does not match")
        self.assertEqual(len(env.applications()), 6)
        self.assertEqual(self.deletes(), [])
        with open(known_hosts, "w") as f:
            f.write(good)
        self.refresh()
        self.wait_cleared("over-ssh")
        self.wait_set_at("over-ssh", third)

        # 5. A force-push that removes the pinned commit: main is rewritten from the commit
        # before it; the sets follow the new commit and nothing is deleted.
        git(env.repo, "reset", "-q", "--hard", second)
        rewritten = self.push("gcr.io/heptio-images/ks-guestbook-demo:0.5")
        self.assertNotIn(third, git(servers.bare, "rev-list", "main"))
        self.refresh()
        self.wait_set_at("over-https", rewritten)
        self.assertIsNone(self.error_condition("over-https"))
        self.assertEqual(self.deletes(), [])

        # 6. A deleted branch: the set on it says the revision is gone and keeps its commit.
        git(servers.bare, "branch", "-D", "release")
        self.refresh()
        self.wait_error("on-release", "RevisionNotFound", url, "release")
        self.assert_nothing_deleted("on-release", first)
        self.assertIn("release", self.cli_get("on-release"))

        # No secret anywhere: log, API, CLI, metrics, state database.
        _, appsets = env.http("GET", "/api/v1/applicationsets")
        _, apps = env.http("GET", "/api/v1/applications")
        metrics = env.metrics_text()
        cli = "".join(self.cli_get(n) for n in ("over-https", "over-ssh", "on-release"))
        db = b""
        for name in os.listdir(env.dir):
            if name.startswith("state.db"):
                with open(os.path.join(env.dir, name), "rb") as f:
                    db += f.read()
        with open(os.path.join(servers.dir, "client_key")) as f:
            key_line = f.read().splitlines()[-2]  # the private key's last base64 line
        for secret in (PASSWORD, WEBHOOK_SECRET, WRONG_PASSWORD, key_line):
            self.assertNotIn(secret, env.log())
            self.assertNotIn(secret, json.dumps(appsets))
            self.assertNotIn(secret, json.dumps(apps))
            self.assertNotIn(secret, cli)
            self.assertNotIn(secret, metrics)
            self.assertNotIn(secret.encode(), db)
        env.stop()

    def test_two_sets_on_one_repository_fetch_once_and_an_unchanged_poll_only_lists(self):
        env, servers = self.env, self.servers
        for name in ("first-set", "second-set"):
            env.write_appset(name + ".yaml", appset_yaml(
                name, env.elements(["env-dev", "env-prod"]), steps=STEPS,
                repo_url=servers.https_url()))
        env.start()
        env.wait_completed("first-set", timeout=120)
        env.wait_completed("second-set", timeout=120)
        repo = "https://127.0.0.1:%d/git/repo" % servers.https_port  # the normalised URL

        # A new commit, refreshed on both sets at once: the objects are fetched once.
        metrics = env.metrics_text()
        fetched_before = fetch_total(metrics, repo, "fetched")
        listings_before, fetches_before = servers.git_requests()
        second = self.push("gcr.io/heptio-images/ks-guestbook-demo:0.3")
        self.refresh()
        self.wait_set_at("first-set", second)
        self.wait_set_at("second-set", second)
        listings, fetches = servers.git_requests()
        self.assertEqual(fetches - fetches_before, 1, "objects fetched once for both sets")
        self.assertGreaterEqual(listings - listings_before, 1)
        self.assertEqual(fetch_total(env.metrics_text(), repo, "fetched") - fetched_before, 1)

        # A poll of the unchanged remote: one ref listing, no fetch. Both sets poll at the
        # refresh; a poll that arrives while the other's listing is in flight shares it, so
        # the sets cost one or two listings, each counted as an "unchanged" sync.
        metrics = env.metrics_text()
        unchanged_before = fetch_total(metrics, repo, "unchanged")
        fetched_before = fetch_total(metrics, repo, "fetched")
        listings_before, fetches_before = servers.git_requests()
        self.refresh()
        wait_for(lambda: fetch_total(env.metrics_text(), repo, "unchanged") > unchanged_before,
                 timeout=30, what=lambda: "an unchanged sync counted\n%s" % env.log_tail())
        counted_before_log = fetch_total(env.metrics_text(), repo, "unchanged") - unchanged_before
        listings, fetches = servers.git_requests()
        metrics = env.metrics_text()
        counted_after_log = fetch_total(metrics, repo, "unchanged") - unchanged_before
        listed = listings - listings_before
        self.assertLessEqual(counted_before_log, listed)
        self.assertLessEqual(listed, counted_after_log)
        self.assertLessEqual(counted_after_log, 2, "at most one listing per set's poll")
        self.assertEqual(fetches - fetches_before, 0, "no fetch for an unchanged remote")
        self.assertEqual(fetch_total(metrics, repo, "fetched"), fetched_before)
        self.assertEqual(fetch_total(metrics, repo, "failed"), 0)
        print("remote-git: a new commit for 2 sets: 1 fetch; an unchanged poll of 2 sets: %d "
              "ref listing(s), %d fetches" % (listed, fetches - fetches_before))
        env.stop()


if __name__ == "__main__":
    unittest.main()
