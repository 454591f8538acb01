"""Issue 27's git generators on remote repositories, against remote_git_e2e_test.py's real
servers on loopback (lighttpd + git http-backend over HTTPS with basic auth, sshd with a pinned
host key). One set is a matrix of a git `files` generator reading the clusters' configurations
over HTTPS and a git `directories` generator whose repoURL is templated from each
configuration (`repoURL: '{{.repo}}'`, as Argo CD renders a matrix's second child with the
first child's parameters): each cluster's app comes from its own repository over ssh, and the
set rolls out on kubesim. The HTTPS server going down is a failure of a repository only the
git generator reads: the set's ErrorOccurred names it, the generated apps stay as they were
(nothing deleted), a daemon restarted while it is down shows it on the stored status too, and
the first refresh that reads it again clears it.

The poll interval is 10 minutes: every fetch here is asked for (POST /api/v1/refresh) and
every wait is a bounded poll on a condition."""
import json
import os
import unittest

import yaml

from daemon_harness import git, wait_for
from remote_git_e2e_test import RemoteBase

SET = "generated"


class RemoteGitGenerators(RemoteBase):
    def refresh(self):
        status, body = self.env.http("POST", "/api/v1/refresh", token=self.env.token)
        self.assertIn(status, (200, 202), body)

    def ssh_url_of(self, bare):
        return self.servers.ssh_url().replace(self.servers.bare, bare)

    def generated_apps(self):
        return {a["metadata"]["name"]: a for a in self.env.applications()
                if a["metadata"]["name"].endswith("-" + SET)}

    def appset(self):
        files = {"repoURL": self.servers.https_url(), "revision": "main",
                 "files": [{"path": "fleet/*.json"}], "pathParamPrefix": "config"}
        directories = {"repoURL": "{{.repo}}", "revision": "main",
                       "directories": [{"path": "guestbook"}]}
        steps = [{"matchExpressions": [{"key": "envLabel", "operator": "In",
                                        "values": [env]}]} for env in ("env-dev", "env-prod")]
        doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
               "metadata": {"name": SET, "namespace": "fleetwave"},
               "spec": {
                   "goTemplate": True, "goTemplateOptions": ["missingkey=error"],
                   "generators": [{"matrix": {"generators": [{"git": files},
                                                             {"git": directories}]}}],
                   "strategy": {"type": "RollingSync", "rollingSync": {"steps": steps}},
                   "template": {
                       "metadata": {"name": "{{.cluster}}-" + SET,
                                    "labels": {"envLabel": "{{.env}}"}},
                       "spec": {"project": "default",
                                "source": {"repoURL": "{{.repo}}", "targetRevision": "main",
                                           "path": "{{.path.path}}"},
                                "destination": {"server": "{{.url}}", "namespace": SET},
                                "syncPolicy": {"syncOptions": ["CreateNamespace=true"]}}}}}
        return yaml.safe_dump(doc, sort_keys=False)

    def test_files_and_templated_directories_generators_read_remote_repositories(self):
        env, servers = self.env, self.servers
        # A second repository, served like the first: each cluster's app has its own.
        other = os.path.join(servers.dir, "repos", "other.git")
        repos = {"sim-0": self.ssh_url_of(servers.bare), "sim-1": self.ssh_url_of(other)}
        # The clusters' configurations, read by the files generator over HTTPS.
        os.makedirs(os.path.join(env.repo, "fleet"))
        for cluster, env_label in (("sim-0", "env-dev"), ("sim-1", "env-prod")):
            with open(os.path.join(env.repo, "fleet", cluster + ".json"), "w") as f:
                json.dump({"cluster": cluster, "url": env.url(cluster), "env": env_label,
                           "repo": repos[cluster]}, f)
        head = env.commit("the fleet's configurations", "fleet")
        git(env.repo, "push", "-q", "-f", "served", "HEAD:main")
        git(env.repo, "clone", "-q", "--bare", env.repo, other)
        env.write_appset(SET + ".yaml", self.appset())
        env.start()

        env.wait_completed(SET, timeout=90)
        wait_for(lambda: env.synced_to(head, count=2), timeout=60,
                 what=lambda: "both generated apps Synced and Healthy at %s\n%s\n%s"
                 % (head, json.dumps(env.applications()), env.log_tail()))
        apps = self.generated_apps()
        self.assertEqual(sorted(apps), ["sim-0-" + SET, "sim-1-" + SET])
        for cluster, repo in repos.items():
            source = apps[cluster + "-" + SET]["spec"]["source"]
            self.assertEqual(source["repoURL"], repo)
            self.assertEqual(source["path"], "guestbook")
        # Rolled out on kubesim: each cluster's guestbook Deployment was applied there.
        for cluster in ("sim-0", "sim-1"):
            applied = [a for a in env.applies(cluster)
                       if a.get("resource") == "deployments" and a.get("namespace") == SET]
            self.assertTrue(applied, "nothing applied in %s: %s" % (cluster,
                                                                   env.applies(cluster)))

        # The repository only the files generator reads goes away: the set says so, naming it,
        # and its apps stay as they were.
        servers.stop_https()
        self.refresh()

        def error_shown():
            c = self.error_condition(SET)
            return (c is not None and c.get("status") == "True"
                    and c.get("reason") == "RepositoryUnavailable"
                    and servers.https_url() in c.get("message", ""))
        wait_for(error_shown, timeout=30, interval=0.1,
                 what=lambda: "%s ErrorOccurred naming %s: %s\n%s"
                 % (SET, servers.https_url(), json.dumps(self.error_condition(SET)),
                    env.log_tail()))
        self.assertEqual(sorted(self.generated_apps()), ["sim-0-" + SET, "sim-1-" + SET])
        self.assertEqual(self.pinned(SET), {(head,)})
        self.assertEqual([a for a in env.audit() if str(a.get("verb", "")).lower() == "delete"],
                         [])

        # A restart while it is down: the new process has no generation of its own to keep, so
        # the set shows its stored status (the pins) with the same ErrorOccurred, and still
        # deletes nothing.
        env.stop()
        env.start()
        wait_for(error_shown, timeout=30, interval=0.1,
                 what=lambda: "after the restart, %s ErrorOccurred naming %s: %s\n%s"
                 % (SET, servers.https_url(), json.dumps(self.error_condition(SET)),
                    env.log_tail()))
        self.assertEqual(self.pinned(SET), {(head,)})
        self.assertEqual([a for a in env.audit() if str(a.get("verb", "")).lower() == "delete"],
                         [])

        # Back: the next refresh reads it, and the condition goes.
        servers.start_https()
        self.refresh()
        wait_for(lambda: self.error_condition(SET) is None, timeout=30, interval=0.1,
                 what=lambda: "%s's ErrorOccurred cleared: %s\n%s"
                 % (SET, json.dumps(self.error_condition(SET)), env.log_tail()))
        # The restarted daemon's clusters may still be listing: a bounded wait, not a read.
        wait_for(lambda: env.synced_to(head, count=2), timeout=60,
                 what=lambda: "both generated apps Synced and Healthy at %s after the restart\n%s"
                 % (head, json.dumps(env.applications())))
        env.stop()


if __name__ == "__main__":
    unittest.main()
