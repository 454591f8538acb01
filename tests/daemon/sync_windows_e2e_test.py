"""Issue 29's sync windows and AppProject limits against kubesim with the real daemon and CLI:

  - an AppProject in the ApplicationSet directory with a deny window active now on step 2's
    cluster holds step 2's syncs once step 1 is done: SyncWindowHold names the window, `get
    appset` says `Held by sync window`, sim-1 gets no write; removing the window from the
    project file (the directory watch reloads it) resumes the rollout, and sim-1's first write
    comes after that;
  - an app whose destination namespace its AppProject does not allow is refused with Argo CD's
    message on the Application and never applied (kubesim's audit has no write in its
    namespace).
"""
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, wait_for


def project_yaml(env, window):
    spec = {
        "sourceRepos": ["*"],
        "destinations": [{"server": "*", "namespace": "held"}],
        "clusterResourceWhitelist": [{"group": "", "kind": "Namespace"}],
    }
    if window:
        spec["syncWindows"] = [{"kind": "deny", "schedule": "* * * * *", "duration": "1h",
                                "clusters": [env.url("sim-1")]}]
    return yaml.safe_dump({"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
                           "metadata": {"name": "fleet", "namespace": "argocd"}, "spec": spec},
                          sort_keys=False)


def set_yaml(env, name, envs, steps):
    doc = yaml.safe_load(appset_yaml(name, env.elements(envs), steps=steps,
                                     repo_url=env.repo_url))
    doc["spec"]["template"]["spec"]["project"] = "fleet"
    return yaml.safe_dump(doc, sort_keys=False)


def condition_of(env, name, type_):
    for c in ((env.appset(name) or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == type_:
            return c
    return {}


def entry_of(env, name, app):
    for e in ((env.appset(name) or {}).get("status") or {}).get("applicationStatus") or []:
        if e.get("application") == app:
            return e
    return {}


def app_conditions(env, app):
    return (((env.application(app) or {}).get("status") or {}).get("conditions")) or []


class SyncWindowsAndProjects(unittest.TestCase):
    def writes_in(self, env, cluster, namespace):
        return [a for a in env.applies(cluster) if a.get("namespace") == namespace]

    def test_a_deny_window_holds_step_two_and_a_project_refuses_a_destination(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("project.yaml", project_yaml(env, window=True))
        env.write_appset("held.yaml", set_yaml(env, "held", ["env-dev", "env-qa"],
                                               [(["env-dev"], None), (["env-qa"], None)]))
        env.write_appset("outside.yaml", set_yaml(env, "outside", ["env-dev"],
                                                  [(["env-dev"], None)]))
        env.start()

        # Step 1 completes; step 2's app is held by the window, which the set names.
        expected_hold = ("ApplicationSet rollout step 2: 1 application held (sim-1-held: sync "
                         "window deny '* * * * *' 1h (UTC) of project 'fleet' is active)")
        wait_for(lambda: entry_of(env, "held", "sim-0-held").get("status") == "Healthy"
                 and condition_of(env, "held", "SyncWindowHold").get("message") == expected_hold,
                 timeout=90, interval=0.1,
                 what=lambda: "step 1 done and step 2 held: %s\n%s"
                 % (condition_of(env, "held", "SyncWindowHold"), env.log_tail()))
        self.assertEqual(condition_of(env, "held", "SyncWindowHold")["reason"], "SyncWindowDenied")
        self.assertEqual(entry_of(env, "held", "sim-1-held").get("status"), "Waiting")
        self.assertIn("Held by sync window", env.cli("get", "appset", "held"))
        self.assertEqual(self.writes_in(env, "sim-1", "held"), [])

        # The refused app: Argo CD's message on the Application, nothing applied.
        refusal = ("application destination server '%s' and namespace 'outside' do not match "
                   "any of the allowed destinations in project 'fleet'" % env.url("sim-0"))
        wait_for(lambda: any(c.get("message") == refusal
                             for c in app_conditions(env, "sim-0-outside")),
                 timeout=30, interval=0.1,
                 what=lambda: "the refusal on sim-0-outside: %s" % app_conditions(env,
                                                                                 "sim-0-outside"))

        # Lifting the window (the project file without it) resumes step 2.
        lifted_at = time.time()
        env.write_appset("project.yaml", project_yaml(env, window=False))
        env.wait_completed("held", timeout=90)
        self.assertEqual(condition_of(env, "held", "SyncWindowHold"), {})
        writes = self.writes_in(env, "sim-1", "held")
        self.assertTrue(writes, "step 2 was written after the window was lifted")
        self.assertGreaterEqual(min(a["t"] for a in writes), lifted_at - 0.5, writes)

        # Never applied: no write in the refused app's namespace, on any cluster, and its
        # rollout entry never synced.
        self.assertEqual(self.writes_in(env, "", "outside"), [])
        self.assertNotIn(entry_of(env, "outside", "sim-0-outside").get("status"),
                         ("Progressing", "Healthy"))
        self.assertTrue(any(c.get("message") == refusal
                            for c in app_conditions(env, "sim-0-outside")))


if __name__ == "__main__":
    unittest.main()
