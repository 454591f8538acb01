"""Issue 29's rollback, with the real pieces: `fleetwave run` against kubesim, Debian's
`prometheus` scraping a test exporter whose value the test sets, a git repository whose commits
change the guestbook image.

Three waves (sim-0, sim-1, sim-2); step 2 has a Prometheus analysis and `onFailure: Rollback`.
The first commit rolls out with the analysis passing. The second commit's analysis fails:

  - step 3 (sim-2) is never written;
  - sim-1 and sim-0 return to the first image (read back from kubesim), sim-1 first: the
    reverse of the rollout;
  - RolloutProgressing says RolloutFailed, the step, the value and the rollback;
  - polls of the same commit (and a restart) roll nothing out again;
  - the next commit rolls out to every cluster.

And the rollback's progress is durable: a daemon killed (-9) once sim-1 was written back goes on
after its restart from the stored rollback and syncs no app back a second time.

Without /usr/bin/prometheus it fails and says so: never skipped.
"""
import tempfile
import time
import unittest

import yaml

from daemon_harness import GUESTBOOK_IMAGE, DaemonEnv, appset_yaml, wait_for
from prometheus_alert_e2e_test import Prometheus
from rollout_analysis_e2e_test import METRIC, Exporter, progressing, rollout_of

NAME = "waves"
DEPLOYMENT = "/apis/apps/v1/namespaces/%s/deployments/guestbook-ui" % NAME
BAD_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:0.3"
NEXT_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:0.4"


def wait_until(t):
    """Lets wall time reach `t`: the test's input (how long polls find the held commit), not a
    synchronisation — what must hold meanwhile is asserted after it."""
    while time.time() < t:
        time.sleep(min(0.05, max(0.0, t - time.time())))


def rollback_set(env, prometheus):
    doc = yaml.safe_load(appset_yaml(NAME, env.elements(["env-dev", "env-qa", "env-prod"]),
                                     steps=[(["env-dev"], None), (["env-qa"], None),
                                            (["env-prod"], None)],
                                     repo_url=env.repo_url))
    step2 = doc["spec"]["strategy"]["rollingSync"]["steps"][1]
    step2["analysis"] = {"prometheus": prometheus, "query": METRIC, "successCondition": "< 0.5",
                         "interval": "1s", "count": 2, "failureLimit": 0}
    step2["onFailure"] = "Rollback"
    return yaml.safe_dump(doc, sort_keys=False)


def deployment_writes(env, cluster, since):
    return [a for a in env.applies(cluster) if a["resource"] == "deployments" and a["t"] >= since]


class Rollback(unittest.TestCase):
    def start(self):
        """The exporter passing, Prometheus holding its sample, the first commit rolled out."""
        self.exporter = Exporter(0.1)
        self.addCleanup(self.exporter.close)
        self.prom = Prometheus(tempfile.mkdtemp(prefix="fleetwave-e2e-prom-"),
                               self.exporter.port, "groups: []\n")
        self.addCleanup(self.prom.stop)
        self.wait_sample(0.1)
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("waves.yaml", rollback_set(env, "http://127.0.0.1:%d" % self.prom.port))
        env.start()
        env.wait_completed_at(env.head(), NAME, timeout=120)
        for cluster in env.clusters:
            self.assertEqual(self.image_on(env, cluster), GUESTBOOK_IMAGE)
        return env

    def sample(self):
        body = self.prom.api("query?query=" + METRIC) or {}
        result = (body.get("data") or {}).get("result") or []
        return float(result[0]["value"][1]) if len(result) == 1 else None

    def wait_sample(self, value):
        wait_for(lambda: self.sample() == value, timeout=60, interval=0.2,
                 what=lambda: "prometheus holding the sample %s\n%s" % (value, self.prom.log()))

    def image_on(self, env, cluster):
        status, body = env.kubesim.request("GET", DEPLOYMENT, cluster=cluster)
        self.assertEqual(status, 200, body)
        return body["spec"]["template"]["spec"]["containers"][0]["image"]

    def rollback(self, env):
        return rollout_of(env, NAME).get("rollback") or {}

    def wait_rolled_back(self, env, timeout=120):
        wait_for(lambda: self.rollback(env).get("finishedAt"), timeout=timeout, interval=0.1,
                 what=lambda: "the rollback to finish: %s\n%s"
                 % (rollout_of(env, NAME), env.log_tail()))

    def test_a_failing_analysis_returns_every_updated_cluster_last_step_first(self):
        env = self.start()
        self.exporter.value = 0.9
        self.wait_sample(0.9)
        since = time.time()
        env.set_manifest(image=BAD_IMAGE)
        self.wait_rolled_back(env)

        # Every cluster runs the first image again; step 3 never saw the second.
        for cluster in env.clusters:
            self.assertEqual(self.image_on(env, cluster), GUESTBOOK_IMAGE,
                             "%s\n%s\n%s" % (cluster, self.rollback(env), env.log_tail(80)))
        self.assertEqual(deployment_writes(env, "sim-2", since), [], "step 3 was written")
        dev = deployment_writes(env, "sim-0", since)
        qa = deployment_writes(env, "sim-1", since)
        self.assertEqual(len(dev), 2, dev)  # the bad image, then the first one back
        self.assertEqual(len(qa), 2, qa)
        self.assertLess(qa[1]["t"], dev[1]["t"], "step 2 was not rolled back before step 1")
        self.assertLess(dev[0]["t"], qa[0]["t"])

        c = progressing(env, NAME)
        self.assertEqual((c.get("status"), c.get("reason")), ("False", "RolloutFailed"))
        self.assertIn("step 2 failed", c["message"])
        self.assertIn("0.9", c["message"])
        self.assertIn("rolled back to each app's last healthy revisions, last step first: "
                      "2 of 2 apps returned", c["message"])
        rb = self.rollback(env)
        self.assertEqual(rb.get("reason"), "StepFailed")
        self.assertEqual(rb.get("failedStep"), 2)
        self.assertEqual(sorted((a["application"], a["phase"]) for a in rb["applications"]),
                         [("sim-0-" + NAME, "RolledBack"), ("sim-1-" + NAME, "RolledBack")])
        self.assertRegex(env.log(), r"sync started \(rollback\)")

        # Polls of the held commit, and a restart, roll nothing out again.
        writes = len(env.applies())
        wait_until(time.time() + 4)
        env.kill9()
        env.start()
        wait_until(time.time() + 4)
        self.assertEqual(len(env.applies()), writes, env.applies()[writes:])
        self.assertEqual(progressing(env, NAME).get("reason"), "RolloutFailed", env.log_tail())

        # The next commit rolls out again, to every cluster.
        self.exporter.value = 0.1
        self.wait_sample(0.1)
        third = env.set_manifest(image=NEXT_IMAGE)
        env.wait_completed_at(third, NAME, timeout=120)
        for cluster in env.clusters:
            self.assertEqual(self.image_on(env, cluster), NEXT_IMAGE, cluster)
        self.assertNotIn("rollback", rollout_of(env, NAME))

    def test_rollback_progress_survives_a_kill9(self):
        env = self.start()
        self.exporter.value = 0.9
        self.wait_sample(0.9)
        since = time.time()
        env.set_manifest(image=BAD_IMAGE)
        # Killed once sim-1 (step 2, rolled back first) was written back: sim-0's sync back
        # may or may not have started, and either way the restarted daemon must go on from the
        # stored rollback, never syncing an app back twice.
        wait_for(lambda: len(deployment_writes(env, "sim-1", since)) == 2, timeout=120,
                 interval=0.05, what=lambda: "sim-1 written back\n" + env.log_tail())
        env.kill9()
        env.start()
        self.wait_rolled_back(env)
        for cluster in env.clusters:
            self.assertEqual(self.image_on(env, cluster), GUESTBOOK_IMAGE, cluster)
        self.assertEqual(len(deployment_writes(env, "sim-1", since)), 2,
                         "sim-1 was synced back a second time after the restart")
        self.assertEqual(len(deployment_writes(env, "sim-0", since)), 2)
        self.assertEqual(deployment_writes(env, "sim-2", since), [])
        after = env.log().split("=== start 2 ===")[1]
        self.assertNotRegex(after, r"app=sim-1-waves .*sync started \(rollback\)")


if __name__ == "__main__":
    unittest.main()
