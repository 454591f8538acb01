"""Issue 16's CLI acceptance: `fleetwave get appset guestbook --watch` against `fleetwave run` on
kubesim, rolling the guestbook over dev/qa/prod with a manual gate (maxUpdate 0) at qa.

On a terminal (a tmux pane, read with `tmux capture-pane -e`) the step view is redrawn in place —
the whole history of the pane holds its header once however often it changed — with the current
step highlighted in colour, and NO_COLOR turns the colours off. On a pipe the first view is
printed once, then one line per change, with no escape codes.

Every wait polls a condition with a deadline (wait_for); nothing sleeps to synchronise.
"""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest

from daemon_harness import FLEETWAVE, DaemonEnv, appset_yaml, wait_for

STEPS_HEADER = "STEP   SELECTOR"
SGR_CYAN = re.compile(r"\x1b\[[0-9;]*36[0-9;]*m")  # the current step (bold cyan)
SGR_ANY_COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-7][0-9;]*m")


class Tmux:
    """A private tmux server (its own socket) with one detached session per command."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="fleetwave-tmux-")
        self.socket = os.path.join(self.dir, "tmux.sock")

    def run(self, *args):
        return subprocess.run(["tmux", "-S", self.socket] + list(args), capture_output=True,
                              text=True, check=True).stdout

    def start(self, name, command, env):
        # The command runs with exactly this environment (tmux would add its own otherwise).
        exports = " ".join("%s=%s" % (k, v) for k, v in env.items())
        self.run("new-session", "-d", "-s", name, "-x", "160", "-y", "50",
                 "env -i %s %s; sleep 600" % (exports, command))

    def screen(self, name, history=False):
        args = ["capture-pane", "-p", "-e", "-t", name]
        if history:
            args += ["-S", "-"]
        return self.run(*args)

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class GetWatchOnTerminalAndPipe(unittest.TestCase):
    def test_redraw_in_place_with_colour_and_lines_on_a_pipe(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], 0), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()

        tmux = Tmux()
        self.addCleanup(tmux.close)
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "FLEETWAVE_SERVER": env.api}
        command = "%s get appset guestbook --watch" % FLEETWAVE
        tmux.start("colour", command, base)
        tmux.start("plain", command, dict(base, NO_COLOR="1"))

        pipe_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        pipe_env["FLEETWAVE_SERVER"] = env.api
        pipe = subprocess.Popen([FLEETWAVE, "get", "appset", "guestbook", "--watch"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=pipe_env)
        self.addCleanup(pipe.wait)
        self.addCleanup(pipe.kill)
        lines = []
        lock = threading.Lock()

        def read():
            for line in pipe.stdout:
                with lock:
                    lines.append(line)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()

        def piped():
            with lock:
                return "".join(lines)

        qa_app = env.clusters[1] + "-guestbook"

        # At the manual gate: step 2 is current (highlighted), its app Waiting for a sync.
        def at_gate(screen):
            return ("Step 2 applications:" in screen and qa_app in screen
                    and "0 (manual)" in screen)
        wait_for(lambda: at_gate(tmux.screen("colour")), timeout=90,
                 what=lambda: "the gate on the terminal:\n" + tmux.screen("colour")
                 + "\n" + env.log_tail())
        colour = tmux.screen("colour")
        self.assertRegex(colour, SGR_CYAN, "the current step is not highlighted")
        wait_for(lambda: at_gate(tmux.screen("plain")), timeout=30,
                 what=lambda: "the gate on the NO_COLOR terminal:\n" + tmux.screen("plain"))
        self.assertNotRegex(tmux.screen("plain"), SGR_ANY_COLOUR, "NO_COLOR printed colours")
        gate_line = ("step 2 (envLabel in (env-qa)): 0/1 [----------] maxUpdate 0 (manual) "
                     "Progressing")
        wait_for(lambda: gate_line in piped(), timeout=30,
                 what=lambda: "the gate on the pipe:\n" + piped())

        env.sync(qa_app)
        done = "ApplicationSet Rollout has completed"
        wait_for(lambda: done in tmux.screen("colour"), timeout=120,
                 what=lambda: "completion on the terminal:\n" + tmux.screen("colour")
                 + "\n" + env.log_tail())
        wait_for(lambda: "appset guestbook: step 3/3 Complete, 3/3 apps complete" in piped(),
                 timeout=30, what=lambda: "completion on the pipe:\n" + piped())

        # In place: however many redraws there were, the pane's whole history (scrollback
        # included) holds one step table, now all Complete and with no step highlighted.
        history = tmux.screen("colour", history=True)
        self.assertEqual(history.count(STEPS_HEADER), 1, history)
        final = re.sub(r"\x1b\[[0-9;]*m", "", tmux.screen("colour"))
        self.assertRegex(final, r"\n2 +envLabel in \(env-qa\) +1/1 +\[#+\] +0 \(manual\) +Complete")
        self.assertNotRegex(tmux.screen("colour"), SGR_CYAN)

        # On the pipe: the first view once, then one line per change, plain text.
        out = piped()
        self.assertEqual(out.count(STEPS_HEADER), 1, out)
        self.assertNotIn("\x1b", out)
        change_lines = [l for l in out.splitlines() if l.startswith(("appset ", "step ", "app "))]
        self.assertIn("step 2 (envLabel in (env-qa)): 1/1 [##########] maxUpdate 0 (manual) "
                      "Complete", change_lines)
        self.assertTrue(any(l.startswith("app %s (step 2): Healthy Synced" % qa_app)
                            for l in change_lines), out)
        # A line is printed when its object's line changed: never twice in a row the same.
        last = {}
        for line in change_lines:
            key = line.split(":", 1)[0]
            self.assertNotEqual(last.get(key), line, "printed without a change: " + line)
            last[key] = line

if __name__ == "__main__":
    unittest.main()
