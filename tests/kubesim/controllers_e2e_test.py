"""kubesim's simulated controllers judged by real clients: `kubectl rollout status` (both
outcomes), the official Python client reading controller-written status, and the
/kubesim/events and /kubesim/audit logs.

Runs with /usr/bin/python3. KUBESIM and KUBECTL name the binaries (ctest sets both).
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubesim_harness import Kubesim, wait_for  # noqa: E402

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  annotations:
    fleetwave.io/rollout-id: "{rollout}"
    other.example/ignored: "x"
spec:
  replicas: {replicas}
  {extra}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: main
        image: {image}
"""


def deployment(name, image, replicas=3, extra="", rollout="r1"):
    return DEPLOYMENT.format(name=name, image=image, replicas=replicas,
                             extra=extra or "minReadySeconds: 0", rollout=rollout)


def lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class RolloutStatusTest(unittest.TestCase):
    """Wall-clock kubesim, as fleetwave's own e2e tests run it."""

    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim("--ready-ms", "100", clusters=2)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def test_rollout_status_succeeds_on_a_healthy_deployment(self):
        self.sim.kubectl("apply", "-f", "-", input=deployment("web", "nginx:1.25"))
        out = self.sim.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        self.assertIn('deployment "web" successfully rolled out', out.stdout)
        # A second rollout, through kubectl set image, also completes.
        self.sim.kubectl("set", "image", "deployment/web", "main=nginx:1.26")
        out = self.sim.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        self.assertIn('deployment "web" successfully rolled out', out.stdout)
        got = json.loads(self.sim.kubectl("get", "deployment", "web", "-o", "json").stdout)
        status = got["status"]
        self.assertEqual(status["observedGeneration"], 2)
        self.assertEqual((status["replicas"], status["updatedReplicas"],
                          status["readyReplicas"], status["availableReplicas"]), (3, 3, 3, 3))
        conditions = {c["type"]: c for c in status["conditions"]}
        self.assertEqual(conditions["Available"]["reason"], "MinimumReplicasAvailable")
        self.assertEqual(conditions["Progressing"]["reason"], "NewReplicaSetAvailable")
        self.assertEqual(got["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2")
        rs = json.loads(self.sim.kubectl("get", "replicasets", "-o", "json").stdout)["items"]
        mine = [r for r in rs if r["metadata"]["ownerReferences"][0]["name"] == "web"]
        self.assertEqual(sorted(r["spec"]["replicas"] for r in mine), [0, 3])

        events = [e for e in lines(self.sim.admin("GET", "/kubesim/events?cluster=sim-0")[1])
                  if e["name"] == "web"]
        self.assertEqual([(e["generation"], e["event"]) for e in events],
                         [(1, "rolloutStarted"), (1, "progressing"), (1, "available"),
                          (2, "rolloutStarted"), (2, "progressing"), (2, "available")])
        for e in events:
            self.assertEqual((e["cluster"], e["kind"], e["namespace"]),
                             ("sim-0", "Deployment", "default"))
            self.assertRegex(e["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_rollout_status_fails_when_the_progress_deadline_passes(self):
        self.sim.kubectl("apply", "-f", "-", context="sim-1",
                         input=deployment("web", "nginx:fail", replicas=2,
                                          extra="progressDeadlineSeconds: 3"))
        started = time.monotonic()
        out = self.sim.kubectl("rollout", "status", "deployment/web", "--timeout=60s",
                               context="sim-1", check=False)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('deployment "web" exceeded its progress deadline', out.stderr)
        self.assertLess(time.monotonic() - started, 30)
        events = lines(self.sim.admin("GET", "/kubesim/events?cluster=sim-1")[1])
        self.assertEqual([e["event"] for e in events if e["name"] == "web"],
                         ["rolloutStarted", "progressing", "progressDeadlineExceeded"])

    def test_rollout_status_of_statefulsets_and_daemonsets(self):
        manifests = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: "pg:1"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: a, image: "agent:1"}]}
"""
        ctx = "sim-1"
        self.sim.kubectl("apply", "-f", "-", input=manifests, context=ctx)
        out = self.sim.kubectl("rollout", "status", "statefulset/db", "--timeout=60s",
                               context=ctx)
        self.assertIn("3 new pods have been updated", out.stdout)
        out = self.sim.kubectl("rollout", "status", "daemonset/agent", "--timeout=60s",
                               context=ctx)
        self.assertIn('daemon set "agent" successfully rolled out', out.stdout)
        # A partitioned update stops at the partition, and kubectl says so.
        self.sim.kubectl("patch", "statefulset", "db", "--type=merge", "-p",
                         json.dumps({"spec": {"updateStrategy": {"rollingUpdate": {
                             "partition": 2}}, "template": {"spec": {"containers": [
                                 {"name": "pg", "image": "pg:2"}]}}}}), context=ctx)
        out = self.sim.kubectl("rollout", "status", "statefulset/db", "--timeout=60s",
                               context=ctx)
        self.assertIn("partitioned roll out complete: 1 new pods have been updated", out.stdout)
        sts = json.loads(self.sim.kubectl("get", "statefulset", "db", "-o", "json",
                                          context=ctx).stdout)["status"]
        self.assertNotEqual(sts["currentRevision"], sts["updateRevision"])
        self.assertEqual((sts["updatedReplicas"], sts["currentReplicas"]), (1, 2))

    def test_python_client_reads_controller_status(self):
        import kubernetes
        cfg = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config(config_file=self.sim.kubeconfig, context="sim-0",
                                           client_configuration=cfg)
        apps = kubernetes.client.AppsV1Api(kubernetes.client.ApiClient(cfg))
        body = {"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": {"name": "db"},
                "spec": {"replicas": 3, "serviceName": "db",
                         "selector": {"matchLabels": {"app": "db"}},
                         "template": {"metadata": {"labels": {"app": "db"}},
                                      "spec": {"containers": [{"name": "pg",
                                                               "image": "postgres:16"}]}}}}
        apps.create_namespaced_stateful_set("default", body)
        sts = wait_for(lambda: (lambda s: s if s.status.ready_replicas == 3 else None)(
            apps.read_namespaced_stateful_set("db", "default")), timeout=30,
            what="statefulset ready")
        self.assertEqual(sts.status.current_revision, sts.status.update_revision)
        self.assertEqual(sts.status.updated_replicas, 3)
        ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
              "spec": {"selector": {"matchLabels": {"app": "agent"}},
                       "template": {"metadata": {"labels": {"app": "agent"}},
                                    "spec": {"containers": [{"name": "a",
                                                             "image": "agent:1"}]}}}}
        apps.create_namespaced_daemon_set("default", ds)
        got = wait_for(lambda: (lambda d: d if d.status.number_available == 3 else None)(
            apps.read_namespaced_daemon_set("agent", "default")), timeout=30,
            what="daemonset available")
        self.assertEqual(got.status.desired_number_scheduled, 3)
        self.assertEqual(got.status.updated_number_scheduled, 3)


class AuditTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim("--manual-clock", clusters=2)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def test_every_mutation_is_audited_with_hash_and_fleetwave_annotations(self):
        manifest = deployment("api", "nginx:1", rollout="r7")
        self.sim.kubectl("apply", "-f", "-", input=manifest)
        self.sim.kubectl("apply", "--server-side", "--field-manager=fleetwave", "--force-conflicts",
                         "-f", "-",
                         input=manifest.replace("nginx:1", "nginx:2"))
        self.sim.kubectl("scale", "deployment/api", "--replicas=5")
        self.sim.advance("1s")  # the controller sees the Deployment before it goes
        self.sim.kubectl("delete", "deployment/api", "--wait=false")
        # A failed write is audited too.
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "x", "namespace": "missing",
                           "annotations": {"fleetwave.io/step": "2"}}}
        self.sim.kubectl("apply", "-f", "-", input=json.dumps(cm), check=False)
        # Reads are not audited; other clusters are separate.
        self.sim.kubectl("get", "deployments")
        status, text = self.sim.admin("GET", "/kubesim/audit?cluster=sim-0")
        self.assertEqual(status, 200)
        records = lines(text)
        what = [(r["verb"], r["resource"], r["name"]) for r in records]
        self.assertEqual(what[0], ("create", "deployments", "api"))
        # kubectl's first server-side apply over a client-side one also migrates
        # managedFields: one or more patches, one of them the apply by "fleetwave".
        self.assertEqual(what[-3:], [("patch", "deployments/scale", "api"),
                                     ("delete", "deployments", "api"),
                                     ("create", "configmaps", "x")])
        self.assertTrue(all(w == ("patch", "deployments", "api") for w in what[1:-3]))
        create, scale, delete, failed = records[0], records[-3], records[-2], records[-1]
        apply = [r for r in records if r["fieldManager"] == "fleetwave"][-1]
        self.assertEqual(create["fieldManager"], "kubectl-client-side-apply")
        self.assertEqual((create["generation"], apply["generation"], scale["generation"]),
                         (1, 2, 3))
        self.assertEqual(create["annotations"], {"fleetwave.io/rollout-id": "r7"})
        self.assertEqual(apply["annotations"], {"fleetwave.io/rollout-id": "r7"})
        self.assertEqual(failed["annotations"], {"fleetwave.io/step": "2"})
        for r in records:
            self.assertRegex(r["bodyHash"], r"^sha256:[0-9a-f]{64}$")
            self.assertEqual(r["cluster"], "sim-0")
            self.assertRegex(r["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
            # The writer's User-Agent as it sent it (tells two writers of one manager apart).
            self.assertTrue(r["userAgent"].startswith("kubectl/"), r["userAgent"])
        self.assertEqual(create["namespace"], "default")
        self.assertEqual((failed["code"], failed["namespace"]), (404, "missing"))
        self.assertNotEqual(create["bodyHash"], apply["bodyHash"])
        # since= returns only later records.
        later = lines(self.sim.admin("GET", "/kubesim/audit?cluster=sim-0&since=%d"
                                     % scale["seq"])[1])
        self.assertEqual([r["seq"] for r in later], [delete["seq"], failed["seq"]])
        self.assertEqual(lines(self.sim.admin("GET", "/kubesim/audit?cluster=sim-1")[1]), [])
        # The controller saw the deletion.
        self.sim.advance("1s")
        events = lines(self.sim.admin("GET", "/kubesim/events?cluster=sim-0")[1])
        self.assertEqual(events[-1]["event"], "deleted")
        self.assertEqual(events[-1]["name"], "api")

    def test_manual_clock_steps_the_controllers(self):
        self.sim.kubectl("apply", "-f", "-", context="sim-1",
                         input=deployment("manual", "nginx:1", replicas=2))
        d = json.loads(self.sim.kubectl("get", "deployment", "manual", "-o", "json",
                                        context="sim-1").stdout)
        self.assertNotIn("availableReplicas", d["status"] or {})
        self.sim.advance("1s")
        d = json.loads(self.sim.kubectl("get", "deployment", "manual", "-o", "json",
                                        context="sim-1").stdout)
        self.assertEqual(d["status"]["availableReplicas"], 2)


if __name__ == "__main__":
    unittest.main()
