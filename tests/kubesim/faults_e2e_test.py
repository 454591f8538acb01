"""kubesim's fault injection, observed by real clients: the official Python client (status
codes, Retry-After, 410 after compaction), kubectl (hang until its timeout) and raw HTTP
(resets, refused connections, delayed and dropped watch streams). Also checks that a hung or
slow cluster does not slow the others.

Runs with /usr/bin/python3. KUBESIM and KUBECTL name the binaries (ctest sets both).
"""
import http.client
import json
import os
import socket
import ssl
import sys
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubesim_harness import Kubesim, wait_for  # noqa: E402

import kubernetes  # noqa: E402


def python_client(sim, context):
    cfg = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(config_file=sim.kubeconfig, context=context,
                                       client_configuration=cfg)
    cfg.retries = 0
    return kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(cfg))


def timed_get(sim, cluster, timeout=10.0):
    """GET the cluster's configmaps; returns (status or exception, seconds)."""
    url = sim.server(cluster) + "/api/v1/namespaces/default/configmaps"
    req = urllib.request.Request(url)
    req.add_header("Authorization", "Bearer " + sim.token(cluster))
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, context=sim.ssl_context, timeout=timeout) as resp:
            resp.read()
            outcome = resp.status
    except urllib.error.HTTPError as e:
        outcome = e.code
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        outcome = e
    return outcome, time.monotonic() - start


class WatchStream:
    """A raw watch: lines with their arrival times, read on a thread."""

    def __init__(self, sim, cluster, query="watch=1"):
        parsed = urllib.parse.urlparse(sim.server(cluster))
        if parsed.scheme == "https":
            self.conn = http.client.HTTPSConnection(parsed.hostname, parsed.port,
                                                    context=sim.ssl_context, timeout=30)
        else:
            self.conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        self.conn.request("GET", parsed.path + "/api/v1/namespaces/default/configmaps?" + query,
                          headers={"Authorization": "Bearer " + sim.token(cluster)})
        self.resp = self.conn.getresponse()
        self.lines = []
        self.ended = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                self.lines.append((time.monotonic(), json.loads(line)))
        except Exception:  # noqa: BLE001 - a dropped stream ends the same way
            pass
        self.ended = time.monotonic()

    def close(self):
        self.conn.close()
        self.thread.join(5)


def create_configmap(sim, cluster, name):
    status, body = sim.request("POST", "/api/v1/namespaces/default/configmaps",
                               {"metadata": {"name": name}, "data": {"k": "v"}}, cluster=cluster)
    assert status == 201, (status, body)
    return body


class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(clusters=3)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def tearDown(self):
        for c in ("sim-0", "sim-1", "sim-2"):
            self.sim.admin("DELETE", "/kubesim/faults?cluster=" + c)

    def fault(self, **fields):
        status, body = self.sim.admin("POST", "/kubesim/faults", fields)
        self.assertEqual(status, 200, body)
        return body

    def test_error_rate_returns_status_objects_and_posts_merge(self):
        api = python_client(self.sim, "sim-0")
        self.fault(cluster="sim-0", errorRate=1.0, errorCode=503)
        with self.assertRaises(kubernetes.client.exceptions.ApiException) as caught:
            api.list_namespaced_config_map("default")
        self.assertEqual(caught.exception.status, 503)
        body = json.loads(caught.exception.body)
        self.assertEqual((body["kind"], body["reason"], body["code"]),
                         ("Status", "ServiceUnavailable", 503))
        # A second post merges: the rate stays, the code changes.
        merged = self.fault(cluster="sim-0", errorCode=500)
        self.assertEqual((merged["errorRate"], merged["errorCode"]), (1.0, 500))
        with self.assertRaises(kubernetes.client.exceptions.ApiException) as caught:
            api.list_namespaced_config_map("default")
        self.assertEqual(caught.exception.status, 500)
        self.assertEqual(json.loads(caught.exception.body)["reason"], "InternalError")
        # Other clusters are unaffected; clearing restores the cluster.
        python_client(self.sim, "sim-1").list_namespaced_config_map("default")
        self.sim.admin("DELETE", "/kubesim/faults?cluster=sim-0")
        api.list_namespaced_config_map("default")
        # Half the requests fail at rate 0.5 (a bounded sample, loose bounds).
        self.fault(cluster="sim-0", errorRate=0.5, errorCode=503)
        codes = [timed_get(self.sim, "sim-0")[0] for _ in range(60)]
        self.assertTrue(10 < codes.count(503) < 50, codes)
        self.assertEqual(codes.count(200) + codes.count(503), 60)

    def test_throttle_answers_429_with_retry_after(self):
        self.fault(cluster="sim-1", throttleRate=1.0, retryAfterSeconds=7)
        api = python_client(self.sim, "sim-1")
        with self.assertRaises(kubernetes.client.exceptions.ApiException) as caught:
            api.list_namespaced_config_map("default")
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(caught.exception.headers["Retry-After"], "7")
        body = json.loads(caught.exception.body)
        self.assertEqual((body["reason"], body["details"]["retryAfterSeconds"]),
                         ("TooManyRequests", 7))

    def test_latency_delays_only_its_cluster(self):
        self.fault(cluster="sim-0", latencyMs=400)
        status, slow = timed_get(self.sim, "sim-0")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(slow, 0.4)
        status, fast = timed_get(self.sim, "sim-1")
        self.assertEqual(status, 200)
        self.assertLess(fast, 0.3)

    def test_hang_holds_until_the_client_times_out_and_others_stay_fast(self):
        self.fault(cluster="sim-2", hang=True)
        # Ten clients stuck on the hung cluster at once...
        stuck = []
        threads = [threading.Thread(target=lambda: stuck.append(timed_get(self.sim, "sim-2",
                                                                          timeout=3.0)))
                   for _ in range(10)]
        for t in threads:
            t.start()
        # ...while another cluster answers every request promptly.
        for _ in range(20):
            status, took = timed_get(self.sim, "sim-1")
            self.assertEqual(status, 200)
            self.assertLess(took, 0.5)
        for t in threads:
            t.join(10)
        self.assertEqual(len(stuck), 10)
        for outcome, took in stuck:
            self.assertIsInstance(outcome, Exception)  # a timeout, not an answer
            self.assertGreaterEqual(took, 2.9)
        # kubectl gives up at its own --request-timeout.
        start = time.monotonic()
        out = self.sim.kubectl("get", "configmaps", "--request-timeout=1s", context="sim-2",
                               check=False, timeout=60)
        self.assertNotEqual(out.returncode, 0)
        self.assertRegex(out.stderr, r"(?i)timeout|deadline|exceeded")
        self.assertLess(time.monotonic() - start, 30)

    def test_down_resets_connections_in_prefix_mode(self):
        self.fault(cluster="sim-0", down=True)
        outcome, _ = timed_get(self.sim, "sim-0")
        self.assertIsInstance(outcome, Exception)
        self.assertRegex(repr(outcome), r"(?i)reset|disconnect|EOF|aborted|closed")
        self.assertEqual(timed_get(self.sim, "sim-1")[0], 200)
        self.sim.admin("DELETE", "/kubesim/faults?cluster=sim-0")
        self.assertEqual(timed_get(self.sim, "sim-0")[0], 200)

    def test_compact_history_expires_old_resource_versions(self):
        cm = create_configmap(self.sim, "sim-1", "before-compaction")
        rv = cm["metadata"]["resourceVersion"]
        create_configmap(self.sim, "sim-1", "second")
        _, page = self.sim.request("GET", "/api/v1/namespaces/default/configmaps?limit=1",
                                   cluster="sim-1")
        token = page["metadata"]["continue"]
        create_configmap(self.sim, "sim-1", "third")  # the token's version is now in the past
        self.fault(cluster="sim-1", compactHistory=True)
        # A watch from before the compaction: 200 and one ERROR event with a 410 Status.
        w = WatchStream(self.sim, "sim-1", "watch=1&resourceVersion=" + rv)
        wait_for(lambda: w.ended, timeout=10, what="the expired watch to end")
        w.close()
        self.assertEqual(w.resp.status, 200)
        self.assertEqual(len(w.lines), 1)
        event = w.lines[0][1]
        self.assertEqual((event["type"], event["object"]["code"], event["object"]["reason"]),
                         ("ERROR", 410, "Expired"))
        # The Python client's watch raises the 410 as ApiException.
        api = python_client(self.sim, "sim-1")
        with self.assertRaises(kubernetes.client.exceptions.ApiException) as caught:
            for _ in kubernetes.watch.Watch().stream(api.list_namespaced_config_map, "default",
                                                     resource_version=rv, timeout_seconds=5):
                pass
        self.assertEqual(caught.exception.status, 410)
        # A continue token from before the compaction is expired too.
        status, body = self.sim.request(
            "GET", "/api/v1/namespaces/default/configmaps?limit=1&continue="
            + urllib.parse.quote(token), cluster="sim-1")
        self.assertEqual((status, body["reason"]), (410, "Expired"))
        # Once: new resourceVersions are fine again.
        fresh = create_configmap(self.sim, "sim-1", "after-compaction")
        w = WatchStream(self.sim, "sim-1",
                        "watch=1&timeoutSeconds=1&resourceVersion="
                        + fresh["metadata"]["resourceVersion"])
        wait_for(lambda: w.ended, timeout=10, what="the watch timeout")
        w.close()
        self.assertEqual([e for _, e in w.lines if e["type"] == "ERROR"], [])

    def test_watch_delay_holds_events_back_and_drop_ends_streams(self):
        self.fault(cluster="sim-0", watchDelayMs=600)
        delayed = WatchStream(self.sim, "sim-0", "watch=1&resourceVersion=1000000")
        prompt = WatchStream(self.sim, "sim-2", "watch=1&resourceVersion=1000000")
        # resourceVersion far in the future is not expired: nothing to replay. Create now.
        start = time.monotonic()
        create_configmap(self.sim, "sim-0", "late")
        create_configmap(self.sim, "sim-2", "on-time")
        wait_for(lambda: any(e["object"]["metadata"]["name"] == "late" for _, e in delayed.lines),
                 timeout=10, what="the delayed event")
        wait_for(lambda: prompt.lines, timeout=10, what="the prompt event")
        late_at = [t for t, e in delayed.lines if e["object"]["metadata"]["name"] == "late"][0]
        self.assertGreaterEqual(late_at - start, 0.6)
        self.assertLess(prompt.lines[0][0] - start, 0.4)
        # dropWatches ends every open watch of the cluster, once.
        self.fault(cluster="sim-0", dropWatches=True)
        wait_for(lambda: delayed.ended, timeout=5, what="the dropped watch to end")
        self.assertIsNone(prompt.ended)
        delayed.close()
        prompt.close()


class PortsDownTest(unittest.TestCase):
    """With --ports, a down cluster's port refuses connections and comes back when cleared."""

    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim("--ports", clusters=2, tls=False)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def admin(self, method, path, body=None):
        # Every port serves the admin API; sim-0's own port is about to refuse connections.
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.sim.server("sim-1") + path, data=data, method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status

    def test_down_refuses_connections_then_recovers(self):
        port = urllib.parse.urlparse(self.sim.server("sim-0")).port
        watch = WatchStream(self.sim, "sim-0", "watch=1")
        self.assertEqual(self.admin("POST", "/kubesim/faults", {"cluster": "sim-0", "down": True}),
                         200)
        wait_for(lambda: watch.ended, timeout=5, what="the open watch to be dropped")
        watch.close()

        def refused():
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                return False
            except ConnectionRefusedError:
                return True
            except ConnectionResetError:
                return False  # accepted just before the listener closed: reset, not refused
        wait_for(refused, timeout=5, what="connection refused")
        self.assertEqual(timed_get(self.sim, "sim-1")[0], 200)
        self.assertEqual(self.admin("DELETE", "/kubesim/faults?cluster=sim-0"), 200)
        wait_for(lambda: timed_get(self.sim, "sim-0")[0] == 200, timeout=5,
                 what="the port to accept again")


if __name__ == "__main__":
    unittest.main()
