"""The daemon and bad files.

Acceptance 8 of issue 13: an ApplicationSet file with a YAML syntax error next to a good one.
The log and the API (GET /api/v1/applicationsets `errors`) name the file with line and column;
the good set keeps rolling.

Issue 30: nothing a file holds can crash the daemon, freeze its configuration or read files
outside its directory. Started with a good set and every hostile file of the tests in its
directory (its own below, and each file of tests/testdata/hostile/ and hostile-names/ that other
changes add), the daemon serves, the good set rolls out, each hostile file is in `errors` with
its name, and secret-looking content behind a symlink or deep in a long line reaches neither the
log nor the API. A bad file dropped into a running daemon never blocks a later change (a
directory change, SIGHUP, POST /api/v1/refresh), and its error leaves `errors` once the file is
removed. The tests judge behaviour, not the text of the errors: whether the engine throws on a
file or returns an error, the outcome is the same."""
import glob
import os
import random
import re
import signal
import unittest

import yaml

from daemon_harness import SOURCE_DIR, DaemonEnv, appset_yaml, wait_for

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

# The template gives a number where the name is a string: `validate` aborted and the daemon's
# reload path froze on the engine's uncaught json type_error (issue 30).
NAME_IS_A_NUMBER = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: typed, namespace: fleetwave}
spec:
  generators:
  - list:
      elements: [{cluster: sim-0}]
  template:
    metadata: {name: 5}
    spec:
      project: default
      source: {repoURL: 'https://example.test/r.git', targetRevision: HEAD, path: guestbook}
      destination: {server: 'https://example.test/', namespace: typed}
"""

MAX_FILE_BYTES = 64 * 1024
HOSTILE_DIRS = [os.path.join(SOURCE_DIR, "tests", "testdata", d)
                for d in ("hostile", "hostile-names")]


def hostile_testdata():
    """Every manifest of the shared hostile folders (those that exist on this tree)."""
    out = []
    for d in HOSTILE_DIRS:
        for ext in ("yaml", "yml", "json"):
            out.extend(sorted(glob.glob(os.path.join(d, "*." + ext))))
    return out


def error_files(env):
    body = env.appsets() or {}
    return {e.get("file", ""): e.get("message", "") for e in body.get("errors") or []}


def set_names(env):
    return sorted(s.get("metadata", {}).get("name")
                  for s in (env.appsets() or {}).get("items", []))


def with_limits(env, limits):
    with open(env.config_path) as f:
        config = yaml.safe_load(f)
    config["limits"] = limits
    with open(env.config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


class BadFile(unittest.TestCase):
    def good_set(self, env, name="guestbook", clusters=None):
        envs = ["env-dev", "env-qa", "env-prod"][:clusters or len(env.clusters)]
        return appset_yaml(name, env.elements(envs),
                           steps=[([e], None) for e in envs], repo_url=env.repo_url)

    def test_error_names_file_line_column_and_the_good_set_rolls_on(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", self.good_set(env))
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

    def test_starts_and_serves_with_every_hostile_file_each_in_errors_and_no_secret_out(self):
        env = DaemonEnv(clusters=2)
        self.addCleanup(env.close)
        with_limits(env, {"maxFileBytes": "64Ki"})
        secret = "SECRET-%016x" % random.getrandbits(64)
        # Outside the directory, what a link to /etc/shadow would read.
        outside = os.path.join(env.dir, "shadow")
        with open(outside, "w") as f:
            f.write("root:$6$%s:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n" % secret)
        env.write_appset("guestbook.yaml", self.good_set(env))
        hostile = {}  # file name in the directory -> what it is

        def put(name, text, what):
            env.write_appset(name, text)
            hostile[name] = what
        put("typed.yaml", NAME_IS_A_NUMBER, "a template whose name is a number")
        os.symlink(outside, os.path.join(env.appsets_dir, "shadow.yaml"))
        hostile["shadow.yaml"] = "a symlink out of the directory"
        os.symlink("../../shadow", os.path.join(env.appsets_dir, "relative.yaml"))
        hostile["relative.yaml"] = "a relative symlink out of the directory"
        put("big.yaml", self.good_set(env, "big") + "# " + "x" * MAX_FILE_BYTES + "\n",
            "a file over limits.maxFileBytes")
        put("long.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n"
            "metadata: {name: long}\nspec: {generators: [" + "q" * 20000 + " " + secret
            + " : : ]]]\n", "an unparsable file with a very long line")
        put("wide.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n"
            "metadata: {name: wide}\n" + "w" * 5000 + secret + ": 1\n",
            "an unknown key of 5,000 characters")
        os.mkdir(os.path.join(env.appsets_dir, "folder.yaml"))
        hostile["folder.yaml"] = "a directory"
        os.mkfifo(os.path.join(env.appsets_dir, "pipe.yaml"))
        hostile["pipe.yaml"] = "a fifo (a read would block)"
        for path in hostile_testdata():
            name = "%s--%s" % (os.path.basename(os.path.dirname(path)), os.path.basename(path))
            with open(path) as f:
                put(name, f.read(), path)

        env.start(ready_timeout=60)
        env.wait_completed_at(env.head(), "guestbook", timeout=120)

        def all_reported():
            errors = error_files(env)
            missing = [n for n in hostile
                       if os.path.join(env.appsets_dir, n) not in errors]
            return not missing and errors
        errors = wait_for(all_reported, timeout=60,
                          what=lambda: "every hostile file in errors; missing %s\n%s"
                          % ([n for n in hostile
                              if os.path.join(env.appsets_dir, n) not in error_files(env)],
                             env.log_tail()))
        for name, what in hostile.items():
            message = errors[os.path.join(env.appsets_dir, name)]
            self.assertTrue(message, "%s (%s): empty error" % (name, what))
            self.assertIn(name, message, "%s (%s): the error does not name the file" % (name, what))
        self.assertEqual(set_names(env), ["guestbook"])

        status, raw_sets = env.http("GET", "/api/v1/applicationsets")
        self.assertEqual(status, 200)
        for where, text in (("the log", env.log()), ("the API", repr(raw_sets)),
                            ("the applications", repr(env.applications()))):
            self.assertNotIn(secret, text, "the secret reached " + where)
            self.assertNotIn("19000:0:99999", text, "the shadow file's lines reached " + where)
            self.assertNotIn("q" * 200, text, "a whole long line reached " + where)
            self.assertNotIn("w" * 200, text, "a whole long key reached " + where)
        self.assertRegex(env.metrics_text(),
                         r'fleetwave_degraded_total\{reason="file"\} [1-9]')

    def test_a_bad_file_never_blocks_a_later_change_and_its_error_leaves_when_removed(self):
        # A long poll: only POST /api/v1/refresh makes the set see a new commit soon.
        env = DaemonEnv(clusters=2, poll_interval="1h")
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", self.good_set(env))
        # A set in a subdirectory through a symlink that stays inside: changing the target is
        # no change of the watched directory, so only SIGHUP reloads it.
        versions = os.path.join(env.appsets_dir, "versions")
        os.mkdir(versions)
        with open(os.path.join(versions, "linked.yaml.txt"), "w") as f:
            f.write(self.good_set(env, "linked", clusters=1))
        os.symlink("versions/linked.yaml.txt", os.path.join(env.appsets_dir, "linked.yaml"))
        env.start()
        env.wait_completed_at(env.head(), "guestbook", timeout=90)
        self.assertEqual(set_names(env), ["guestbook", "linked"])

        typed = os.path.join(env.appsets_dir, "typed.yaml")
        env.write_appset("typed.yaml", NAME_IS_A_NUMBER)
        wait_for(lambda: typed in error_files(env), timeout=30,
                 what=lambda: "typed.yaml in errors; got %s\n%s"
                 % (error_files(env), env.log_tail()))

        # (1) A directory change after the bad file: a new set comes.
        env.write_appset("second.yaml", self.good_set(env, "second"))
        wait_for(lambda: "second" in set_names(env), timeout=30,
                 what=lambda: "the set of second.yaml after the bad file; sets %s\n%s"
                 % (set_names(env), env.log_tail()))

        # (2) SIGHUP: a change the directory watch does not see takes effect.
        def apps():
            return sorted(a.get("metadata", {}).get("name") for a in env.applications())
        self.assertNotIn("sim-1-linked", apps())
        with open(os.path.join(versions, "linked.yaml.txt"), "w") as f:
            f.write(self.good_set(env, "linked", clusters=2))
        env.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "sim-1-linked" in apps(), timeout=30,
                 what=lambda: "SIGHUP to load the linked set's second cluster; apps %s\n%s"
                 % (apps(), env.log_tail()))

        # (3) POST /api/v1/refresh: a new commit rolls out long before the next poll.
        revision = env.set_manifest(image="gcr.io/heptio-images/ks-guestbook-demo:0.3")
        status, body = env.http("POST", "/api/v1/refresh", token=env.token)
        self.assertIn(status, (200, 202), body)
        def guestbook_at_revision():
            apps = [a for a in env.applications()
                    if a.get("metadata", {}).get("name", "").endswith("-guestbook")]
            return (len(apps) == len(env.clusters) and env.rollout_completed("guestbook")
                    and all(((a.get("status") or {}).get("sync") or {}).get("revision")
                            == revision for a in apps)
                    and all(tuple(e.get("targetRevisions") or ()) == (revision,)
                            for e in env.app_statuses("guestbook").values()))
        wait_for(guestbook_at_revision, timeout=120,
                 what=lambda: "guestbook at %s after the refresh; status %s\n%s"
                 % (revision, env.appset("guestbook"), env.log_tail()))

        # The bad file is still bad and still reported; removed, its error leaves.
        self.assertIn(typed, error_files(env))
        os.remove(typed)
        wait_for(lambda: typed not in error_files(env), timeout=30,
                 what=lambda: "typed.yaml's error to leave; got %s\n%s"
                 % (error_files(env), env.log_tail()))


if __name__ == "__main__":
    unittest.main()
