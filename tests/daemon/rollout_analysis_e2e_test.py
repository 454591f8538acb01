"""Issue 29's Prometheus analysis between waves, with the real pieces: Debian's `prometheus`
scrapes a small test exporter (a python http.server in this process serving one gauge whose
value the test sets), and the daemon (`fleetwave run` against kubesim) queries that Prometheus'
/api/v1/query for step 1's analysis:

  - a passing value: step 2's first write (kubesim's audit) comes only after `count` passing
    measurements, taken `interval` apart (the first at once once step 1's app is available),
    each logged and counted in fleetwave_analysis_measurements_total{appset,step,result};
  - a failing value: the rollout halts with RolloutProgressing False/RolloutFailed naming the
    step, the value and the condition; step 2 is never written, not even once the value
    recovers; the measurement shows in the API's status.rollout.analysis and under the step
    table of `fleetwave get appset` (the summary) and `fleetwave get appset --all`;
  - measurements are durable: a daemon killed (-9) after two of four measurements goes on with
    them after its restart and takes only the rest.

Without /usr/bin/prometheus it fails and says so: never skipped.
"""
import http.server
import re
import socket
import tempfile
import threading
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, available_at, wait_for
from prometheus_alert_e2e_test import Prometheus

METRIC = "e2e_error_rate"
INTERVAL = 2
COUNT = 3


class Exporter:
    """One gauge at /metrics whose value the test sets; bound here (port 0), so no race."""

    def __init__(self, value):
        self.value = value
        exporter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = ("# TYPE %s gauge\n%s %s\n" % (METRIC, METRIC, exporter.value)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def analysed_set(env, name, failure_limit, prometheus=None, count=COUNT):
    """sim-0 in step 1 (env-dev) with the analysis, sim-1 in step 2 (env-qa)."""
    doc = yaml.safe_load(appset_yaml(name, env.elements(["env-dev", "env-qa"]),
                                     steps=[(["env-dev"], None), (["env-qa"], None)],
                                     repo_url=env.repo_url))
    analysis = {"query": METRIC, "successCondition": "< 0.5", "interval": "%ds" % INTERVAL,
                "count": count, "failureLimit": failure_limit}
    if prometheus:
        analysis["prometheus"] = prometheus
    doc["spec"]["strategy"]["rollingSync"]["steps"][0]["analysis"] = analysis
    return yaml.safe_dump(doc, sort_keys=False)


def rollout_of(env, name):
    return ((env.appset(name) or {}).get("status") or {}).get("rollout") or {}


def progressing(env, name):
    for c in ((env.appset(name) or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "RolloutProgressing":
            return c
    return {}


def error_of(env, name):
    for c in ((env.appset(name) or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "ErrorOccurred":
            return c
    return {}


def first_deployment_write(env, cluster):
    writes = [a for a in env.applies(cluster) if a["resource"] == "deployments"]
    return writes[0] if writes else None


def measurements_counted(env, name, result):
    pattern = re.compile(r'^fleetwave_analysis_measurements_total\{([^}]*)\} (\S+)$', re.M)
    for labels, value in pattern.findall(env.metrics_text()):
        if 'appset="%s"' % name in labels and 'step="1"' in labels \
                and 'result="%s"' % result in labels:
            return float(value)
    return 0.0


class AnalysisBetweenWaves(unittest.TestCase):
    def start(self, value, failure_limit, default_prometheus, count=COUNT):
        """The exporter at `value`, Prometheus scraping it (and holding a sample), the daemon
        with the set. `default_prometheus`: the URL comes from fleetwave.yaml's
        analysis.prometheus, else from the step."""
        self.exporter = Exporter(value)
        self.addCleanup(self.exporter.close)
        prom_dir = tempfile.mkdtemp(prefix="fleetwave-e2e-prom-")
        self.prom = Prometheus(prom_dir, self.exporter.port, "groups: []\n")
        self.addCleanup(self.prom.stop)
        wait_for(lambda: self.sample() == value, timeout=60, interval=0.2,
                 what=lambda: "prometheus holding the exporter's sample\n" + self.prom.log())
        url = "http://127.0.0.1:%d" % self.prom.port
        extra = {"analysis": {"prometheus": url}} if default_prometheus else {}
        env = DaemonEnv(clusters=2, extra_config=extra)
        self.addCleanup(env.close)
        env.write_appset("analysed.yaml", analysed_set(
            env, "analysed", failure_limit, None if default_prometheus else url, count))
        env.start()
        return env

    def wait_step_1_failed(self, env):
        """RolloutProgressing False/RolloutFailed naming step 1: the condition."""
        wait_for(lambda: progressing(env, "analysed").get("reason") == "RolloutFailed",
                 timeout=90, interval=0.1,
                 what=lambda: "the rollout to fail: %s\n%s"
                 % (progressing(env, "analysed"), env.log_tail()))
        c = progressing(env, "analysed")
        self.assertEqual(c.get("status"), "False")
        self.assertIn("step 1 failed", c["message"])
        return c

    def sample(self):
        body = self.prom.api("query?query=" + METRIC) or {}
        result = (body.get("data") or {}).get("result") or []
        return float(result[0]["value"][1]) if len(result) == 1 else None

    def test_a_passing_query_opens_step_2_only_after_count_measurements(self):
        env = self.start(0.1, failure_limit=0, default_prometheus=True)
        env.wait_completed("analysed", timeout=90)

        d = first_deployment_write(env, "sim-0")
        available = available_at(env.available_events(), "sim-0", d.get("namespace", ""),
                                 d["name"], d.get("generation"), d["t"])
        self.assertIsNotNone(available, "step 1's Deployment never became available")
        step2 = first_deployment_write(env, "sim-1")
        self.assertIsNotNone(step2)
        gap = step2["t"] - available
        print("step 2's first write %.2f s after step 1 was available" % gap)
        # The first measurement is taken at once, the others `interval` apart in their stored
        # times, which have whole seconds: the first and the last at least (count - 1) x interval
        # - 1 s apart in wall time.
        self.assertGreaterEqual(gap, (COUNT - 1) * INTERVAL - 1,
                                "step 2 was written before %d measurements" % COUNT)
        self.assertEqual(measurements_counted(env, "analysed", "pass"), COUNT)
        self.assertEqual(measurements_counted(env, "analysed", "fail"), 0)
        lines = re.findall(r"appset=analysed step=1 analysis measurement 0\.1 passed", env.log())
        self.assertEqual(len(lines), COUNT, env.log_tail())
        self.assertFalse(rollout_of(env, "analysed").get("analysis"),
                         "the measurements went with their step")

    def test_a_failing_query_halts_the_rollout_and_step_2_is_never_written(self):
        env = self.start(0.9, failure_limit=0, default_prometheus=False)
        c = self.wait_step_1_failed(env)
        self.assertIn("0.9", c["message"])
        self.assertIn('"< 0.5"', c["message"])
        self.assertIn(METRIC, c["message"])
        self.assertIsNone(first_deployment_write(env, "sim-1"), "step 2 was written")

        # The measurement is in the API's status and in `fleetwave get appset`.
        measured = rollout_of(env, "analysed").get("analysis") or {}
        self.assertEqual(measured.get("step"), 1)
        self.assertEqual([(m.get("value"), m.get("passed")) for m in measured["measurements"]],
                         [(0.9, False)])
        self.assertEqual(rollout_of(env, "analysed").get("failedStep"), 1)
        # `get appset` (the summary) and `get appset --all` (every step) list the measurements
        # under the step table; the summary's condition message names the failed value.
        summary = env.cli("get", "appset", "analysed")
        self.assertIn("step 1 failed: analysis failed", summary)
        self.assertIn("0.9 at", summary)
        for view in (summary, env.cli("get", "appset", "analysed", "--all")):
            self.assertIn("Step 1 analysis: 0/%d passed, 1 failed; %s < 0.5" % (COUNT, METRIC),
                          view)
            self.assertRegex(view, r"\n\S+Z\s+0\.9\s+Failed")
        self.assertEqual(measurements_counted(env, "analysed", "fail"), 1)

        # The value recovers (Prometheus scraped it, a second or more later, over which the
        # daemon polled and decided): the halt holds; only a new revision or a resume clears it.
        self.exporter.value = 0.1
        wait_for(lambda: self.sample() == 0.1, timeout=30, interval=0.2,
                 what=lambda: "prometheus holding the recovered sample\n" + self.prom.log())
        self.assertEqual(progressing(env, "analysed").get("reason"), "RolloutFailed")
        self.assertIsNone(first_deployment_write(env, "sim-1"), "step 2 was written")
        self.assertEqual(measurements_counted(env, "analysed", "pass"), 0,
                         "a halted analysis takes no more measurements")

    def test_an_unreachable_prometheus_fails_the_step_never_passes_it(self):
        # failureLimit 1: the first failed measurement is tolerated, the second fails the step.
        # The URL's port is bound here without listening, so nothing can answer on it for the
        # whole test (connection refused), unlike a port merely found free.
        closed = socket.socket()
        self.addCleanup(closed.close)
        closed.bind(("127.0.0.1", 0))
        url = "http://127.0.0.1:%d" % closed.getsockname()[1]
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("analysed.yaml", analysed_set(env, "analysed", 1, url))
        env.start()
        c = self.wait_step_1_failed(env)
        self.assertIn(url, c["message"])
        self.assertIsNone(first_deployment_write(env, "sim-1"), "step 2 was written")
        self.assertEqual(env.applies("sim-1"), [], "step 2's cluster was written")

        # failureLimit + 1 measurements, each failed with no value and why, in the API.
        measured = rollout_of(env, "analysed").get("analysis") or {}
        self.assertEqual(measured.get("step"), 1)
        ms = measured.get("measurements") or []
        self.assertEqual(len(ms), 2, measured)
        for m in ms:
            self.assertIs(m.get("passed"), False, m)
            self.assertNotIn("value", m)
            self.assertIn("Prometheus did not answer: %s did not answer (" % url, m["error"])
        self.assertEqual(rollout_of(env, "analysed").get("failedStep"), 1)
        self.assertEqual(measurements_counted(env, "analysed", "fail"), 2)
        self.assertEqual(measurements_counted(env, "analysed", "pass"), 0)
        self.assertEqual(len(re.findall(r"appset=analysed step=1 analysis measurement no value "
                                        r"\(Prometheus did not answer: [^\n]*\) failed",
                                        env.log())), 2, env.log_tail())
        # `get appset` lists them as failed with their error.
        summary = env.cli("get", "appset", "analysed")
        self.assertIn("Step 1 analysis: 0/%d passed, 2 failed" % COUNT, summary)
        self.assertRegex(summary, r"\n\S+Z\s+-\s+Failed\s+Prometheus did not answer")

    def test_an_analysis_with_no_prometheus_to_ask_refuses_the_set(self):
        # Neither the step nor fleetwave.yaml names a Prometheus: the analysis could never pass,
        # so the set is refused before anything is written, with ErrorOccurred naming the step.
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        env.write_appset("analysed.yaml", analysed_set(env, "analysed", 0))
        env.start()
        wait_for(lambda: error_of(env, "analysed").get("reason") == "AnalysisPrometheusMissing",
                 timeout=60, interval=0.1,
                 what=lambda: "the set refused: %s\n%s" % (env.appset("analysed"), env.log_tail()))
        c = error_of(env, "analysed")
        self.assertEqual(c.get("status"), "True")
        self.assertIn("spec.strategy.rollingSync.steps[0].analysis (step 1) has no prometheus "
                      "and fleetwave.yaml sets no analysis.prometheus", c["message"])
        self.assertIn("steps[0].analysis (step 1) has no prometheus", env.log())
        # Three polls (1 s each) later, nothing has reached any cluster. (How long the set is
        # watched is the test's input, not a synchronisation.)
        refused_at = time.time()
        while time.time() < refused_at + 3:
            time.sleep(0.05)
        self.assertEqual(env.applies(), [], "a refused set was applied")
        self.assertEqual(error_of(env, "analysed").get("reason"), "AnalysisPrometheusMissing")
        self.assertIn("Error", env.cli("get", "appset", "analysed"))

    def test_measurements_taken_survive_a_kill9(self):
        # count 4, 2 s apart: killed once two measurements were stored, the restarted daemon
        # goes on with them and takes only the rest.
        env = self.start(0.1, failure_limit=0, default_prometheus=True, count=4)
        line = re.compile(r"appset=analysed step=1 analysis measurement 0\.1 passed")
        wait_for(lambda: len(line.findall(env.log())) >= 2, timeout=90, interval=0.1,
                 what=lambda: "two measurements stored\n" + env.log_tail())
        env.kill9()
        before = len(line.findall(env.log()))
        env.start()
        env.wait_completed("analysed", timeout=90)
        after = len(line.findall(env.log().split("=== start 2 ===")[1]))
        print("%d measurements before the kill, %d after the restart" % (before, after))
        self.assertGreaterEqual(before + after, 4)
        self.assertLessEqual(after, 4 - before, "the restart analysed from scratch")
        self.assertIsNotNone(first_deployment_write(env, "sim-1"))


if __name__ == "__main__":
    unittest.main()
