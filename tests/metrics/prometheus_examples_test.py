#!/usr/bin/env python3
"""Checks of examples/prometheus: promtool lints the alert rules and the scrape config and runs
the rules' unit tests; every alert is tested both firing and quiet; the Grafana dashboard's
queries parse as PromQL (through promtool, as recording rules) and name only metrics fleetwave
exports (metrics/metrics.h, metrics/process_collector.h).

promtool comes from Debian's `prometheus` package (scripts/install-deps.sh). Without it these
tests fail and say so: they are never skipped.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.realpath(os.path.join(HERE, "..", ".."))
EXAMPLES = os.path.join(REPO, "examples", "prometheus")
ALERTS = ["FleetwaveProgressDeadlineExceeded", "FleetwaveRolloutStalled", "FleetwaveClusterDown",
          "FleetwaveConfigReloadFailed", "FleetwaveApplicationOutOfSync",
          "FleetwavePendingDeletion", "FleetwaveApplicationDrifted", "FleetwaveDecisionDiverged",
          "FleetwaveGitRepositoryStale", "FleetwaveRolloutFailed", "FleetwaveAnalysisFailing",
          "FleetwaveRolledBack"]


def promtool(*args, cwd=EXAMPLES):
    tool = shutil.which("promtool")
    if tool is None:
        raise AssertionError("promtool not found on PATH: install Debian's `prometheus` package "
                             "(scripts/install-deps.sh)")
    return subprocess.run([tool, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def exported_metrics():
    """The metric names the C++ headers document, histograms with their sample suffixes."""
    names = set()
    for rel in ["metrics/metrics.h", "metrics/process_collector.h"]:
        with open(os.path.join(REPO, rel)) as f:
            for m in re.finditer(r"\b((?:fleetwave|process)_[a-z_]+)", f.read()):
                names.add(m.group(1))
    with_suffixes = set(names)
    for n in names:
        for suffix in ["_bucket", "_sum", "_count"]:
            with_suffixes.add(n + suffix)
    return with_suffixes


def referenced_metrics(expr):
    # Metric names are the fleetwave_/process_ identifiers not followed by a label-name '='.
    return {m.group(1) for m in re.finditer(r"\b((?:fleetwave|process)_[a-z_]+)\b(?!\s*=)", expr)}


def dashboard_targets():
    with open(os.path.join(EXAMPLES, "grafana-dashboard.json")) as f:
        dashboard = json.load(f)
    out = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            out.append((panel["title"], target["expr"]))
    return dashboard, out


class PromtoolTest(unittest.TestCase):
    def test_check_rules(self):
        r = promtool("check", "rules", "alerts.yaml")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"SUCCESS: {len(ALERTS)} rules found", r.stdout)

    def test_rule_unit_tests(self):
        r = promtool("test", "rules", "alerts_test.yaml")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_check_scrape_config(self):
        r = promtool("check", "config", "prometheus.yml")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


class ExamplesTest(unittest.TestCase):
    def test_the_documented_alerts_exist(self):
        with open(os.path.join(EXAMPLES, "alerts.yaml")) as f:
            rules = yaml.safe_load(f)
        names = [r["alert"] for g in rules["groups"] for r in g["rules"]]
        self.assertEqual(sorted(names), sorted(ALERTS))
        known = exported_metrics()
        for g in rules["groups"]:
            for r in g["rules"]:
                for name in referenced_metrics(r["expr"]):
                    self.assertIn(name, known, f"{r['alert']} uses an unknown metric")

    def test_every_alert_is_tested_firing_and_quiet(self):
        with open(os.path.join(EXAMPLES, "alerts_test.yaml")) as f:
            tests = yaml.safe_load(f)
        firing, quiet = set(), set()
        for t in tests["tests"]:
            for case in t.get("alert_rule_test", []):
                (firing if case.get("exp_alerts") else quiet).add(case["alertname"])
        for alert in ALERTS:
            self.assertIn(alert, firing, f"{alert} is never shown firing")
            self.assertIn(alert, quiet, f"{alert} is never shown quiet")

    def test_dashboard_queries_parse_and_name_exported_metrics(self):
        dashboard, targets = dashboard_targets()
        self.assertGreater(len(targets), 10)
        titles = " ".join(p["title"] for p in dashboard["panels"]).lower()
        for topic in ["rollout step", "health", "sync", "deadline", "cluster up", "request rate",
                      "latency"]:
            self.assertIn(topic, titles)
        known = exported_metrics()
        rules = []
        for i, (title, expr) in enumerate(targets):
            for name in referenced_metrics(expr):
                self.assertIn(name, known, f"panel {title!r} uses an unknown metric")
            # Grafana's variables, as a query would see them.
            concrete = (expr.replace("$__rate_interval", "5m").replace("$job", ".*")
                        .replace("$appset", ".*"))
            rules.append({"record": f"dashboard:query_{i}", "expr": concrete})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dashboard_rules.yaml")
            with open(path, "w") as f:
                yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
            r = promtool("check", "rules", path, cwd=d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
