"""Acceptance 8 of issue 13: an ApplicationSet file with a YAML syntax error next to a good one.
The log and the API (GET /api/v1/applicationsets `errors`) name the file with line and column;
the good set keeps rolling."""
import re
import unittest

from daemon_harness import DaemonEnv, appset_yaml, wait_for

# The error is on line 5, column 15: the second `:` on one line (1-based, as editors count).
BROKEN = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  namespace: fleetwave
  name: broken: yes
spec:
  generators: []
"""
BROKEN_LINE, BROKEN_COLUMN = 5, 15


class BadFile(unittest.TestCase):
    def test_error_names_file_line_column_and_the_good_set_rolls_on(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        # The bad file arrives while the good set is rolling (after its first write).
        wait_for(lambda: env.applies("sim-0"), timeout=60,
                 what=lambda: "the first write of the good set\n" + env.log_tail())
        env.write_appset("broken.yaml", BROKEN)

        where = re.compile(r"broken\.yaml:(\d+):(\d+)")

        def api_error():
            body = env.appsets() or {}
            for e in body.get("errors") or []:
                text = "%s %s" % (e.get("file", ""), e.get("message", ""))
                if "broken.yaml" in text:
                    return text
            return None
        text = wait_for(api_error, timeout=30,
                        what=lambda: "the API to report broken.yaml; got %s\n%s"
                        % (env.appsets(), env.log_tail()))
        m = where.search(text)
        self.assertIsNotNone(m, "no file:line:col in the API's error: " + text)
        self.assertEqual((int(m.group(1)), int(m.group(2))), (BROKEN_LINE, BROKEN_COLUMN), text)

        log_lines = [line for line in env.log().splitlines() if where.search(line)]
        self.assertTrue(log_lines, "no file:line:col for broken.yaml in the log:\n"
                        + env.log_tail())
        m = where.search(log_lines[0])
        self.assertEqual((int(m.group(1)), int(m.group(2))), (BROKEN_LINE, BROKEN_COLUMN),
                         log_lines[0])

        env.wait_completed_at(env.head(), "guestbook", timeout=90)
        names = [s.get("metadata", {}).get("name") for s in (env.appsets() or {}).get("items", [])]
        self.assertEqual(names, ["guestbook"])


if __name__ == "__main__":
    unittest.main()
