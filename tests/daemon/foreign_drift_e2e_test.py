"""Issue 31, drift made by other tools: a strategic-merge PATCH by another field manager (as
`kubectl patch` sends it) to a Deployment's image or replicas, or to a Secret's data, moves
those fields out of fleetwave's managed fields. The app must still show OutOfSync naming the
field (never the Secret's value), and an app with selfHeal must take the fields back (read
back from kubesim)."""
import base64
import os
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, GUESTBOOK_IMAGE, appset_yaml, parse_time, wait_for

DEPLOYMENT = "/apis/apps/v1/namespaces/%s/deployments/guestbook-ui"
SECRET = "/api/v1/namespaces/%s/secrets/guestbook-creds"
PASSWORD = "correct horse battery staple"
EVIL_PASSWORD = "attacker-knows-this"
IMAGE_POINTER = "/spec/template/spec/containers/0/image"
# One watch event reaches the app's status well within this; the git poll (1 s) is not needed.
NOTICE_TIMEOUT = 10


def b64(text):
    return base64.b64encode(text.encode()).decode()


class ForeignDrift(unittest.TestCase):
    def setUp(self):
        self.env = DaemonEnv(clusters=2)
        self.addCleanup(self.env.close)
        env = self.env
        with open(os.path.join(env.repo, "guestbook", "secret.yaml"), "w") as f:
            yaml.safe_dump({"apiVersion": "v1", "kind": "Secret",
                            "metadata": {"name": "guestbook-creds"},
                            "stringData": {"password": PASSWORD}}, f)
        env.commit("a secret", "guestbook/secret.yaml")
        # "watch" (sim-0): automated without selfHeal, so drift stays visible.
        # "heal" (sim-1): automated with selfHeal, so drift is taken back.
        env.write_appset("watch.yaml", appset_yaml(
            "watch", env.elements(["env-dev"]), strategy="AllAtOnce",
            sync_policy={"automated": {"selfHeal": False}}, repo_url=env.repo_url))
        env.write_appset("heal.yaml", appset_yaml(
            "heal", [{"cluster": "sim-1", "url": env.url("sim-1"), "env": "env-dev"}],
            strategy="AllAtOnce",
            sync_policy={"automated": {"selfHeal": True}}, repo_url=env.repo_url))
        env.start()
        self.watch, self.heal = "sim-0-watch", "sim-1-heal"
        wait_for(lambda: self.synced_healthy(self.watch) and self.synced_healthy(self.heal),
                 timeout=60, what=lambda: "both apps Synced and Healthy\n" + env.log_tail())

    def sync_of(self, app):
        return ((self.env.application(app) or {}).get("status") or {}).get("sync") or {}

    def synced_healthy(self, app):
        status = (self.env.application(app) or {}).get("status") or {}
        return (status.get("sync", {}).get("status") == "Synced"
                and status.get("health", {}).get("status") == "Healthy")

    def patch(self, cluster, path, body):
        """A strategic-merge PATCH by another field manager, as `kubectl patch` sends it."""
        status, answer = self.env.kubesim.request(
            "PATCH", path + "?fieldManager=kubectl-patch", body, cluster=cluster,
            content_type="application/strategic-merge-patch+json")
        self.assertEqual(status, 200, answer)
        return answer

    def get(self, cluster, path):
        status, answer = self.env.kubesim.request("GET", path, cluster=cluster)
        self.assertEqual(status, 200, answer)
        return answer

    def owners(self, obj):
        return {e["manager"] for e in obj["metadata"].get("managedFields", [])}

    def wait_drift(self, app, kind_name, pointer):
        want = "%s has drifted at %s" % (kind_name, pointer)
        wait_for(lambda: self.sync_of(app).get("status") == "OutOfSync"
                 and self.sync_of(app).get("message", "").startswith(want),
                 timeout=NOTICE_TIMEOUT,
                 what=lambda: "%s OutOfSync naming %s; sync: %s\n%s"
                 % (app, pointer, self.sync_of(app), self.env.log_tail()))

    def wait_synced(self, app):
        wait_for(lambda: self.sync_of(app).get("status") == "Synced", timeout=NOTICE_TIMEOUT,
                 what=lambda: "%s Synced again; sync: %s\n%s"
                 % (app, self.sync_of(app), self.env.log_tail()))

    def test_each_foreign_change_is_out_of_sync_naming_its_field(self):
        ns = "watch"
        image_patch = {"spec": {"template": {"spec": {"containers": [
            {"name": "guestbook-ui", "image": "attacker/evil:latest"}]}}}}
        live = self.patch("sim-0", DEPLOYMENT % ns, image_patch)
        self.assertIn("kubectl-patch", self.owners(live))
        self.wait_drift(self.watch, "Deployment/guestbook-ui", IMAGE_POINTER)
        # Putting the value back by hand (still kubectl-patch's field) is in sync again: drift
        # is about values, not about who owns them.
        self.patch("sim-0", DEPLOYMENT % ns, {"spec": {"template": {"spec": {"containers": [
            {"name": "guestbook-ui", "image": GUESTBOOK_IMAGE}]}}}})
        self.wait_synced(self.watch)

        self.patch("sim-0", DEPLOYMENT % ns, {"spec": {"replicas": 5}})
        self.wait_drift(self.watch, "Deployment/guestbook-ui", "/spec/replicas")
        self.patch("sim-0", DEPLOYMENT % ns, {"spec": {"replicas": 2}})
        self.wait_synced(self.watch)

        self.patch("sim-0", SECRET % ns, {"data": {"password": b64(EVIL_PASSWORD)}})
        self.wait_drift(self.watch, "Secret/guestbook-creds", "/data/password")
        # Neither value is ever shown: not in the app, not in the log.
        shown = str(self.env.application(self.watch)) + self.env.log()
        for secret in (PASSWORD, EVIL_PASSWORD, b64(PASSWORD), b64(EVIL_PASSWORD)):
            self.assertNotIn(secret, shown)
        # Without selfHeal nothing is written back.
        self.assertEqual(self.get("sim-0", SECRET % ns)["data"]["password"], b64(EVIL_PASSWORD))

    def test_self_heal_takes_the_fields_back(self):
        ns = "heal"
        patched_at = time.time()
        self.patch("sim-1", DEPLOYMENT % ns, {"spec": {"replicas": 5, "template": {"spec": {
            "containers": [{"name": "guestbook-ui", "image": "attacker/evil:latest"}]}}}})
        self.patch("sim-1", SECRET % ns, {"data": {"password": b64(EVIL_PASSWORD)}})

        def restored():
            d = self.get("sim-1", DEPLOYMENT % ns)
            s = self.get("sim-1", SECRET % ns)
            return (d["spec"]["replicas"] == 2
                    and d["spec"]["template"]["spec"]["containers"][0]["image"] == GUESTBOOK_IMAGE
                    and s["data"]["password"] == b64(PASSWORD))
        wait_for(restored, timeout=60, what=lambda: "selfHeal restores image, replicas and the "
                 "Secret in kubesim; sync: %s\n%s" % (self.sync_of(self.heal), self.env.log_tail()))
        wait_for(lambda: self.synced_healthy(self.heal), timeout=60,
                 what=lambda: "%s Synced and Healthy after selfHeal\n%s"
                 % (self.heal, self.env.log_tail()))
        # Taken back by fleetwave's server-side apply of both objects, after the foreign patch.
        healed = {a["resource"] for a in self.env.audit("sim-1")
                  if str(a.get("verb", "")).lower() == "patch"
                  and a.get("fieldManager") == "fleetwave" and 200 <= a.get("code", 0) < 300
                  and a.get("resource") in ("deployments", "secrets")
                  and parse_time(a["time"]) >= patched_at - 0.01}
        self.assertEqual(healed, {"deployments", "secrets"})


if __name__ == "__main__":
    unittest.main()
