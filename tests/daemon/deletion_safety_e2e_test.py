"""Issue 14's deletion safety acceptance, against kubesim with the real daemon (grace period
10 s): with the ApplicationSet directory emptied for 30 s nothing is marked and nothing is
deleted; with a context removed from the kubeconfig, the app its cluster generator no longer
produces is PendingDeletion (in the set's status), nothing of it is deleted before the grace
period is over, and its objects are deleted after it (through the context's last good
connection), while the other clusters' apps stay untouched."""
import os
import shutil
import signal
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, parse_time, wait_for

NAME = "fleet"
GRACE = 10
EMPTY_FOR = 30


def set_grace(env, seconds):
    with open(env.config_path) as f:
        config = yaml.safe_load(f)
    config["deletion"] = {"gracePeriod": "%ds" % seconds}
    with open(env.config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


def fleet_yaml(env):
    """One app per kubeconfig context (cluster generator), synced automatically."""
    doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
           "metadata": {"name": NAME, "namespace": "fleetwave"},
           "spec": {"generators": [{"clusters": {}}],
                    "template": {"metadata": {"name": "fleet-{{name}}"},
                                 "spec": {"project": "default",
                                          "source": {"repoURL": env.repo_url,
                                                     "targetRevision": "HEAD",
                                                     "path": "guestbook"},
                                          "destination": {"server": "{{server}}",
                                                          "namespace": NAME},
                                          "syncPolicy": {"automated": {},
                                                         "syncOptions":
                                                             ["CreateNamespace=true"]}}}}}
    return yaml.safe_dump(doc, sort_keys=False)


def deletes(env, cluster=""):
    out = []
    for a in env.audit(cluster):
        if str(a.get("verb", "")).lower() == "delete" and not a.get("dryRun"):
            a["t"] = parse_time(a["time"])
            out.append(a)
    return out


def remove_context(env, context):
    kubeconfig = os.path.join(env.config_dir, "kubeconfig")
    with open(kubeconfig) as f:
        kc = yaml.safe_load(f)
    kc["contexts"] = [c for c in kc["contexts"] if c["name"] != context]
    with open(kubeconfig, "w") as f:
        yaml.safe_dump(kc, f, sort_keys=False)
    with open(env.config_path) as f:
        config = yaml.safe_load(f)
    config["clusters"] = [c for c in config["clusters"] if c["name"] != context]
    with open(env.config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


def pending(env, app):
    status = (env.appset(NAME) or {}).get("status") or {}
    for e in status.get("pendingDeletions") or []:
        if e.get("application") == app:
            return e
    return None


class DeletionSafety(unittest.TestCase):
    def test_empty_directory_deletes_nothing_and_a_removed_context_waits_for_the_grace(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        set_grace(env, GRACE)
        env.write_appset("fleet.yaml", fleet_yaml(env))
        env.start()
        wait_for(lambda: env.synced_to(env.head(), count=3), timeout=60,
                 what=lambda: "every app synced; log:\n" + env.log_tail())

        # 1. The directory is empty for 30 s: nothing is marked, nothing deleted (a deadline
        #    loop that fails at the first sign of either).
        aside = os.path.join(env.dir, "aside")
        os.makedirs(aside)
        shutil.move(os.path.join(env.appsets_dir, "fleet.yaml"), aside)
        wait_for(lambda: "is empty; the ApplicationSets loaded before stay in force" in env.log(),
                 timeout=10, what="the empty directory to be noticed")
        deadline = time.monotonic() + EMPTY_FOR
        while time.monotonic() < deadline:
            self.assertEqual(deletes(env), [], "deleted while the directory was empty")
            status = (env.appset(NAME) or {}).get("status") or {}
            self.assertNotIn("deletion", status, "marked while the directory was empty")
            self.assertFalse(status.get("pendingDeletions"))
            time.sleep(0.5)  # the observation window's sampling period, not a synchronisation
        shutil.move(os.path.join(aside, "fleet.yaml"), env.appsets_dir)
        self.assertEqual(len(env.applications()), 3)

        # 2. A context leaves the kubeconfig: its app is PendingDeletion, deleted after GRACE.
        remove_context(env, "sim-2")
        removed_at = time.time()
        env.proc.send_signal(signal.SIGHUP)
        entry = wait_for(lambda: pending(env, "fleet-sim-2"), timeout=15,
                         what=lambda: "fleet-sim-2 PendingDeletion in the API; log:\n"
                         + env.log_tail())
        self.assertEqual(entry["phase"], "PendingDeletion")
        delete_at = parse_time(entry["deleteAt"])
        self.assertGreaterEqual(delete_at, removed_at + GRACE - 1.5)
        # Nothing of it goes before deleteAt...
        while time.time() < delete_at - 0.5:
            self.assertEqual(deletes(env), [], "deleted before the grace period was over")
            time.sleep(0.2)  # sampling period of the observation window
        # ...and it goes after it, through the context's last good connection.
        wait_for(lambda: any(d["resource"] == "deployments" for d in deletes(env, "sim-2")),
                 timeout=GRACE + 15, what=lambda: "sim-2's Deployment deleted; log:\n"
                 + env.log_tail())
        first = min(d["t"] for d in deletes(env))
        self.assertGreaterEqual(first, delete_at, "a delete came before deleteAt")
        self.assertEqual(sorted({d["cluster"] for d in deletes(env)}), ["sim-2"])
        wait_for(lambda: pending(env, "fleet-sim-2") is None, timeout=15,
                 what=lambda: "the pending deletion to end; status: %s"
                 % (env.appset(NAME) or {}).get("status"))
        self.assertIn("app=fleet-sim-2 deleted", env.log())


if __name__ == "__main__":
    unittest.main()
