"""Issue 29's failure budget and soak against kubesim with the real daemon:

  - a prod step of 3 with one app on a never-ready image (kubesim never readies a `fail` tag; its
    Deployment's 3 s progress deadline turns it Degraded) and `maxFailures: 1` completes, and the
    failed app is reported in its status message; with `maxFailures: 0` the same step fails:
    RolloutProgressing False / RolloutFailed naming the step and the app;
  - soak: with `minSuccessTime: 5s` on step 1, step 2's first write comes at least 5 s after
    step 1's Deployment was available (kubesim's audit and events).
"""
import os
import shutil
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, available_at, wait_for

FAIL_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:fail"


def add_failing_path(env):
    """`guestbook-fail`: the guestbook with an image kubesim never readies and a 3 s deadline."""
    src, dst = os.path.join(env.repo, "guestbook"), os.path.join(env.repo, "guestbook-fail")
    shutil.copytree(src, dst)
    path = os.path.join(dst, "guestbook.yaml")
    with open(path) as f:
        docs = list(yaml.safe_load_all(f))
    for d in docs:
        if d and d.get("kind") == "Deployment":
            d["spec"]["template"]["spec"]["containers"][0]["image"] = FAIL_IMAGE
            d["spec"]["progressDeadlineSeconds"] = 3
    with open(path, "w") as f:
        yaml.safe_dump_all(docs, f, sort_keys=False)
    env.commit("a failing copy", "guestbook-fail")


def set_with(name, env, envs, paths, steps, first_cluster=0):
    """appset_yaml over clusters sim-<first_cluster>.. with a per-element source path and each
    step's extra fields merged in. `steps`: list of (env values, {field: value})."""
    elements = env.elements(["-"] * first_cluster + list(envs))[first_cluster:]
    doc = yaml.safe_load(appset_yaml(name, elements, steps=[(e, None) for e, _ in steps],
                                     repo_url=env.repo_url))
    for element, path in zip(doc["spec"]["generators"][0]["list"]["elements"], paths):
        element["path"] = path
    doc["spec"]["template"]["spec"]["source"]["path"] = "{{.path}}"
    for step, (_, extra) in zip(doc["spec"]["strategy"]["rollingSync"]["steps"], steps):
        step.update(extra)
    return yaml.safe_dump(doc, sort_keys=False)


def status_of(env, name):
    return (env.appset(name) or {}).get("status") or {}


def progressing_of(env, name):
    for c in status_of(env, name).get("conditions") or []:
        if c.get("type") == "RolloutProgressing":
            return c
    return {}


class FailureBudget(unittest.TestCase):
    def test_one_failed_app_within_the_budget_completes_and_one_over_it_halts(self):
        env = DaemonEnv(clusters=6)
        self.addCleanup(env.close)
        add_failing_path(env)
        ok, bad = "guestbook", "guestbook-fail"
        # "budget": sim-0..2 in prod, sim-2 failing, maxFailures 1.
        # "strict": sim-3..5 in prod, sim-5 failing, maxFailures 0.
        env.write_appset("budget.yaml", set_with(
            "budget", env, ["env-prod"] * 3, [ok, ok, bad], [(["env-prod"], {"maxFailures": 1})]))
        env.write_appset("strict.yaml", set_with(
            "strict", env, ["env-prod"] * 3, [ok, ok, bad], [(["env-prod"], {"maxFailures": 0})],
            first_cluster=3))
        env.start()

        env.wait_completed("budget", timeout=120)
        statuses = env.app_statuses("budget")
        failed = statuses.get("sim-2-budget", {})
        self.assertEqual(failed.get("message"),
                         "Application failed (health is Degraded), counted against the step's "
                         "maxFailures", statuses)
        self.assertNotEqual(failed.get("status"), "Healthy")
        for app in ("sim-0-budget", "sim-1-budget"):
            self.assertEqual(statuses.get(app, {}).get("status"), "Healthy", statuses)
        wait_for(lambda: 'fleetwave_step_failures{appset="budget",step="1"} 1'
                 in env.metrics_text(), timeout=20, interval=0.2,
                 what=lambda: "fleetwave_step_failures of budget's step 1")

        want = ("False", "RolloutFailed",
                "ApplicationSet rollout step 1 failed: 1 application failed, more than its "
                "maxFailures 0 allows: sim-5-strict; promotion is halted until a new revision or "
                "a resume")
        wait_for(lambda: (lambda c: (c.get("status"), c.get("reason"), c.get("message")))(
                     progressing_of(env, "strict")) == want,
                 timeout=60, interval=0.2,
                 what=lambda: "strict's RolloutFailed: %s\n%s"
                 % (progressing_of(env, "strict"), env.log_tail()))
        rollout = status_of(env, "strict").get("rollout") or {}
        self.assertEqual(rollout.get("failedStep"), 1)
        self.assertEqual(rollout.get("failedApps"), ["sim-5-strict"])
        self.assertFalse(env.rollout_completed("strict"))


class Soak(unittest.TestCase):
    def test_step_two_starts_only_after_step_one_soaked(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("soak.yaml", set_with(
            "soak", env, ["env-dev", "env-qa"], ["guestbook", "guestbook"],
            [(["env-dev"], {"minSuccessTime": "5s"}), (["env-qa"], {})]))
        env.start()
        env.wait_completed("soak", timeout=90)

        dev_writes = [a for a in env.applies("sim-0") if a["resource"] == "deployments"]
        qa_writes = env.applies("sim-1")
        self.assertTrue(dev_writes and qa_writes)
        d = dev_writes[0]
        available = available_at(env.available_events(), "sim-0", d.get("namespace", ""),
                                 d["name"], d.get("generation"), d["t"])
        self.assertIsNotNone(available, "step 1's Deployment never became available")
        gap = qa_writes[0]["t"] - available
        print("step 2's first write %.2f s after step 1 was available" % gap)
        self.assertGreaterEqual(gap, 5.0,
                                "step 2 was written %.1f s after step 1 was available" % gap)
        # A timer, not a poll, ends the soak: step 2 starts within a few seconds of its end.
        self.assertLess(gap, 5.0 + 4.0, "step 2 started %.1f s after step 1 was available" % gap)


if __name__ == "__main__":
    unittest.main()
