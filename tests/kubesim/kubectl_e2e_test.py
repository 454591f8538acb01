"""kubesim judged by the real kubectl (v1.32) through the kubeconfig kubesim writes.

Runs with /usr/bin/python3. KUBESIM and KUBECTL name the binaries (ctest sets both).
"""
import json
import os
import select
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
  labels: {{app: {name}}}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: main
        image: {image}
        ports:
        - containerPort: 80
"""


def deployment(name, replicas=2, image="nginx:1.25"):
    return DEPLOYMENT.format(name=name, replicas=replicas, image=image)


def configmap(name, namespace="default", labels=None):
    doc = {"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
           "data": {"k": "v"}}
    return json.dumps(doc)


def namespace(name):
    return json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


class KubectlManualClockTest(unittest.TestCase):
    """Deterministic time: controllers (namespace termination) step only when told."""

    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim("--manual-clock", clusters=2)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def k(self, *args, **kw):
        return self.sim.kubectl(*args, **kw)

    def test_version_reports_server(self):
        out = json.loads(self.k("version", "-o", "json").stdout)
        self.assertEqual(out["serverVersion"]["major"], "1")
        self.assertTrue(out["serverVersion"]["gitVersion"].startswith("v1.32"))

    def test_api_resources_lists_every_kind(self):
        out = self.k("api-resources").stdout
        for line in ["configmaps", "cm", "namespaces", "secrets", "services", "svc",
                     "serviceaccounts", "events", "deployments", "deploy", "statefulsets",
                     "daemonsets", "replicasets", "clonesets", "apps.kruise.io"]:
            self.assertIn(line, out)
        rows = {l.split()[0]: l for l in out.splitlines()[1:]}
        self.assertIn("false", rows["namespaces"])
        self.assertIn("Deployment", rows["deployments"])

    def test_explain_deployment_spec(self):
        out = self.k("explain", "deployment.spec").stdout
        self.assertIn("KIND:       Deployment", out)
        for field in ["progressDeadlineSeconds", "replicas", "selector", "template",
                      "strategy"]:
            self.assertIn(field, out)

    def test_create_get_and_watch_delivers_events(self):
        self.k("create", "-f", "-", input=configmap("watched-0", labels={"w": "1"}))
        watch = self.sim.kubectl_popen("get", "configmaps", "-l", "w=1", "-w", "-o", "name")
        try:
            seen = []

            def lines_for(name):
                # Drains whatever kubectl printed so far; one line per event.
                while select.select([watch.stdout], [], [], 0.1)[0]:
                    line = watch.stdout.readline()
                    if not line:
                        break
                    seen.append(line.strip().split("/")[-1])
                return seen.count(name)

            wait_for(lambda: lines_for("watched-0") >= 1, what="initial list through the watch")
            self.k("create", "-f", "-", input=configmap("watched-1", labels={"w": "1"}))
            wait_for(lambda: lines_for("watched-1") >= 1, what="ADDED event for watched-1")
            self.k("label", "configmap", "watched-1", "extra=yes")
            wait_for(lambda: lines_for("watched-1") >= 2, what="MODIFIED event")
        finally:
            watch.kill()
            watch.communicate()
        got = json.loads(self.k("get", "configmap", "watched-1", "-o", "json").stdout)
        self.assertEqual(got["data"], {"k": "v"})
        self.assertTrue(got["metadata"]["uid"])
        self.assertTrue(got["metadata"]["creationTimestamp"])

    def test_client_side_apply_with_default_validation(self):
        out = self.k("apply", "-f", "-", input=deployment("csa")).stdout
        self.assertIn("deployment.apps/csa created", out)
        out = self.k("apply", "-f", "-", input=deployment("csa", replicas=3)).stdout
        self.assertIn("configured", out)
        out = self.k("apply", "-f", "-", input=deployment("csa", replicas=3)).stdout
        self.assertIn("unchanged", out)
        got = json.loads(self.k("get", "deploy", "csa", "-o", "json").stdout)
        self.assertEqual(got["spec"]["replicas"], 3)
        self.assertEqual(got["metadata"]["generation"], 2)
        self.assertEqual(got["spec"]["progressDeadlineSeconds"], 600)
        self.assertEqual(got["spec"]["revisionHistoryLimit"], 10)
        self.assertIn("kubectl.kubernetes.io/last-applied-configuration",
                      got["metadata"]["annotations"])
        # Changing one container field keeps the rest of the container (strategic merge).
        self.k("apply", "-f", "-", input=deployment("csa", replicas=3, image="nginx:1.26"))
        got = json.loads(self.k("get", "deploy", "csa", "-o", "json").stdout)
        c = got["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(c["image"], "nginx:1.26")
        self.assertEqual(c["ports"][0]["containerPort"], 80)
        # Default validation is server-side Strict: a misspelt field is refused.
        typo = deployment("csa-typo").replace("\nspec:", "\nspex:", 1)
        refused = self.k("apply", "-f", "-", input=typo, check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn('strict decoding error: unknown field "spex"', refused.stderr)

    def test_server_side_apply_conflict_between_managers(self):
        self.k("apply", "--server-side", "--field-manager=alice", "-f", "-",
               input=deployment("ssa", replicas=2))
        bob = deployment("ssa", replicas=5)
        failed = self.k("apply", "--server-side", "--field-manager=bob", "-f", "-", input=bob,
                        check=False)
        self.assertNotEqual(failed.returncode, 0)
        self.assertIn("conflict", failed.stderr)
        self.assertIn('"alice"', failed.stderr)
        self.assertIn(".spec.replicas", failed.stderr)
        self.k("apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", "-",
               input=bob)
        got = json.loads(self.k("get", "deploy", "ssa", "-o", "json",
                                "--show-managed-fields").stdout)
        self.assertEqual(got["spec"]["replicas"], 5)
        managers = {m["manager"]: m for m in got["metadata"]["managedFields"]}
        self.assertIn("f:replicas", managers["bob"]["fieldsV1"]["f:spec"])
        self.assertNotIn("f:replicas", managers["alice"]["fieldsV1"]["f:spec"])

    def test_label_and_patches(self):
        self.k("apply", "-f", "-", input=deployment("patched"))
        self.k("label", "deploy", "patched", "tier=front")
        self.k("patch", "deploy", "patched", "--type=merge", "-p", '{"spec":{"replicas":4}}')
        got = json.loads(self.k("get", "deploy", "patched", "-o", "json").stdout)
        self.assertEqual(got["metadata"]["labels"]["tier"], "front")
        self.assertEqual(got["spec"]["replicas"], 4)
        self.k("patch", "deploy", "patched", "--type=json", "-p",
               '[{"op":"replace","path":"/spec/replicas","value":6},'
               '{"op":"add","path":"/metadata/labels/extra","value":"x"}]')
        got = json.loads(self.k("get", "deploy", "patched", "-o", "json").stdout)
        self.assertEqual(got["spec"]["replicas"], 6)
        self.assertEqual(got["metadata"]["labels"]["extra"], "x")
        names = self.k("get", "deploy", "-l", "tier in (front),extra", "-o", "name").stdout
        self.assertEqual(names.split(), ["deployment.apps/patched"])
        self.k("scale", "deploy", "patched", "--replicas=1")  # the /scale subresource
        got = json.loads(self.k("get", "deploy", "patched", "-o", "json").stdout)
        self.assertEqual(got["spec"]["replicas"], 1)
        self.assertEqual(got["metadata"]["generation"], 4)

    def test_chunked_list_across_pages(self):
        self.k("create", "-f", "-", input=namespace("paged"))
        for i in range(5):
            self.k("create", "-f", "-", input=configmap("page-%d" % i, "paged"))
        result = self.k("get", "configmaps", "-n", "paged", "--chunk-size=2", "-o", "name",
                        "-v=6")
        names = sorted(l.split("/")[-1] for l in result.stdout.split())
        self.assertEqual(names, ["page-%d" % i for i in range(5)])
        pages = [l for l in result.stderr.splitlines() if "GET" in l and "limit=2" in l]
        self.assertEqual(len(pages), 3, result.stderr)
        self.assertEqual(sum("continue=" in p for p in pages), 2)

    def test_namespace_terminates_then_disappears_with_contents(self):
        self.k("create", "-f", "-", input=namespace("doomed"))
        self.k("create", "-f", "-", input=configmap("inside", "doomed"))
        self.k("apply", "-n", "doomed", "-f", "-", input=deployment("app"))
        self.k("delete", "namespace", "doomed", "--wait=false")
        phase = self.k("get", "namespace", "doomed", "-o", "jsonpath={.status.phase}").stdout
        self.assertEqual(phase, "Terminating")
        table = self.k("get", "namespace", "doomed").stdout  # server-side printed Table
        self.assertRegex(table, r"doomed\s+Terminating")
        self.k("get", "configmap", "inside", "-n", "doomed")
        self.sim.advance("1s")
        gone = self.k("get", "namespace", "doomed", check=False)
        self.assertNotEqual(gone.returncode, 0)
        self.assertIn("NotFound", gone.stderr)
        left = self.k("get", "configmaps,deployments", "-n", "doomed", "-o", "name").stdout
        self.assertEqual(left.strip(), "")

    def test_wrong_token_is_unauthorized(self):
        result = self.k("--token=wrong", "get", "configmaps", check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("Unauthorized", result.stderr)
        status, body = self.sim.request("GET", "/api/v1/namespaces", token="wrong")
        self.assertEqual(status, 401)
        self.assertEqual(body["kind"], "Status")
        self.assertEqual(body["reason"], "Unauthorized")
        # sim-1's token does not open sim-0.
        status, _ = self.sim.request("GET", "/api/v1/namespaces", token=self.sim.token("sim-1"))
        self.assertEqual(status, 401)

    def test_other_clusters_objects_are_invisible(self):
        self.k("create", "-f", "-", input=configmap("only-in-sim-0"))
        other = self.k("get", "configmap", "only-in-sim-0", context="sim-1", check=False)
        self.assertNotEqual(other.returncode, 0)
        self.assertIn("NotFound", other.stderr)
        self.k("get", "configmap", "only-in-sim-0", context="sim-0")


class KubectlWallClockTest(unittest.TestCase):
    """Default time (wall clock) and one port per cluster."""

    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim("--ports", clusters=2)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def test_each_cluster_has_its_own_port(self):
        self.assertNotEqual(self.sim.server("sim-0"), self.sim.server("sim-1"))
        self.assertNotIn("/clusters/", self.sim.server("sim-1"))
        self.sim.kubectl("create", "-f", "-", input=configmap("p"), context="sim-1")
        self.assertNotEqual(self.sim.kubectl("get", "cm", "p", check=False).returncode, 0)

    def test_delete_namespace_waits_until_gone(self):
        self.sim.kubectl("create", "-f", "-", input=namespace("brief"))
        self.sim.kubectl("create", "-f", "-", input=configmap("c", "brief"))
        start = time.monotonic()
        self.sim.kubectl("delete", "namespace", "brief", timeout=30)
        self.assertLess(time.monotonic() - start, 30)
        self.assertNotEqual(self.sim.kubectl("get", "ns", "brief", check=False).returncode, 0)


class PlainHttpTest(unittest.TestCase):
    """Without --tls: kubectl sends no token over plain HTTP, so none is required; a wrong
    token is still refused."""

    def test_kubectl_works_and_wrong_token_is_refused(self):
        sim = Kubesim(clusters=1, tls=False)
        try:
            self.assertTrue(sim.server().startswith("http://"))
            sim.kubectl("create", "-f", "-", input=configmap("plain"))
            self.assertIn("plain", sim.kubectl("get", "cm").stdout)
            status, body = sim.request("GET", "/api/v1/namespaces", token="wrong")
            self.assertEqual(status, 401)
            self.assertEqual(body["reason"], "Unauthorized")
        finally:
            sim.stop()


if __name__ == "__main__":
    unittest.main()
