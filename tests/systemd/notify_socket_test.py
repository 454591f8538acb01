"""fleetwave.service's Type=notify protocol, judged on the real `fleetwave run` with a fake
NOTIFY_SOCKET (an AF_UNIX datagram socket this test binds, as systemd does).

The daemon runs against a tiny config: an empty ApplicationSet directory and a kubeconfig with
one context whose server does not answer (no kubesim needed). What is pinned:
  - READY=1 (with STATUS= counts) once it is up; STATUS= says "ApplicationSets";
  - SIGHUP: RELOADING=1, then READY=1 after the reload;
  - WATCHDOG=1 pings (WATCHDOG_USEC small) while the actor system answers the heartbeat;
  - the pings stop while every scheduler thread is wedged on purpose, and come back when
    released. The wedge is a test-only hook: FLEETWAVE_TEST_WEDGE=1 makes SIGUSR1 block every CAF
    scheduler thread with a throwaway actor per thread (tools/fleetwave/service_heartbeat.h), the
    state a handler stuck in blocking I/O would leave; a second SIGUSR1 releases them;
  - SIGTERM: STOPPING=1 and exit status 0;
  - without NOTIFY_SOCKET, nothing changes: the plain run starts and stops cleanly;
  - an exec credential plugin runs as the daemon's child with the HOME the unit sets.

Every wait is a poll on a condition with a deadline. The one observation window (no WATCHDOG=1
while wedged) is a property over time, measured in heartbeat periods, not a synchronisation.
"""
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

FLEETWAVE = os.environ.get("FLEETWAVE", "fleetwave")
WATCHDOG_USEC = 300000  # heartbeat period = WATCHDOG_USEC / 3 = 100 ms
PERIOD = WATCHDOG_USEC / 3 / 1e6


def wait_for(predicate, timeout=20.0, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0fs waiting for %s"
                                 % (timeout, what() if callable(what) else what))
        time.sleep(0.02)


class NotifySocket:
    """Collects every datagram sent to it, with its arrival time."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.1)
        self.messages = []  # (monotonic time, text)
        self.lock = threading.Lock()
        self.closed = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.closed:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.messages.append((time.monotonic(), data.decode()))

    def snapshot(self):
        with self.lock:
            return list(self.messages)

    def count(self):
        with self.lock:
            return len(self.messages)

    def find(self, needle, start=0):
        """Index of the first message at or after `start` containing `needle` as a line."""
        for i, (_, text) in enumerate(self.snapshot()[start:], start):
            if needle in text.split("\n"):
                return i
        return None

    def close(self):
        self.closed = True
        self.thread.join()
        self.sock.close()


class Daemon:
    def __init__(self, notify=True, watchdog=True, extra_env=None, user="{token: not-a-real-token}"):
        self.dir = tempfile.TemporaryDirectory(prefix="fleetwave-notify-")
        d = self.dir.name
        os.mkdir(os.path.join(d, "applicationsets"))
        with open(os.path.join(d, "kubeconfig.yaml"), "w") as f:
            f.write("apiVersion: v1\nkind: Config\n"
                    "clusters: [{name: c0, cluster: {server: 'https://127.0.0.1:9'}}]\n"
                    "contexts: [{name: c0, context: {cluster: c0, user: u0}}]\n"
                    "users: [{name: u0, user: %s}]\n"
                    "current-context: c0\n" % user.replace("@DIR@", d))
        with open(os.path.join(d, "fleetwave.yaml"), "w") as f:
            f.write("kubeconfig: kubeconfig.yaml\napplicationSets: applicationsets\n"
                    "state: sqlite://state.db\n"
                    "listen: {api: '127.0.0.1:0', metrics: '127.0.0.1:0'}\n")
        env = {k: v for k, v in os.environ.items()
               if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM")}
        self.notify = None
        if notify:
            path = os.path.join(d, "notify.sock")
            self.notify = NotifySocket(path)
            env["NOTIFY_SOCKET"] = path
            if watchdog:
                env["WATCHDOG_USEC"] = str(WATCHDOG_USEC)
        env.update(extra_env or {})
        self.log_path = os.path.join(d, "fleetwave.log")
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen([FLEETWAVE, "run", "--config",
                                      os.path.join(d, "fleetwave.yaml")],
                                     stdout=subprocess.DEVNULL, stderr=self.log_file, env=env)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def messages(self):
        return [text for _, text in self.notify.snapshot()] if self.notify else []

    def describe(self):
        return "messages %r; log:\n%s" % (self.messages()[-20:], self.log()[-3000:])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log_file.close()
        if self.notify:
            self.notify.close()
        self.dir.cleanup()


class NotifySocketTest(unittest.TestCase):
    def start(self, **kwargs):
        d = Daemon(**kwargs)
        self.addCleanup(d.stop)
        return d

    def wait_message(self, d, needle, start=0, timeout=20.0):
        found = wait_for(lambda: (d.notify.find(needle, start),) if d.notify.find(needle, start)
                         is not None else None, timeout,
                         what=lambda: "%s after message %d: %s" % (needle, start, d.describe()))
        return found[0]

    def test_ready_status_reload_and_stop(self):
        d = self.start()
        ready = self.wait_message(d, "READY=1")
        text = d.messages()[ready]
        self.assertRegex(text, r"STATUS=0 ApplicationSets, 0 Applications, \d+/\d+ clusters up")
        self.assertNotIn("RELOADING=1", "".join(d.messages()[:ready]))

        d.proc.send_signal(signal.SIGHUP)
        reloading = self.wait_message(d, "RELOADING=1", ready + 1)
        again = self.wait_message(d, "READY=1", reloading + 1)
        self.assertIn("STATUS=", d.messages()[again])
        wait_for(lambda: "reload: " in d.log(), what=d.describe)

        d.proc.send_signal(signal.SIGTERM)
        self.wait_message(d, "STOPPING=1", again + 1)
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        # Nothing after STOPPING=1 claims readiness or liveness again.
        stopping = d.notify.find("STOPPING=1")
        for text in d.messages()[stopping + 1:]:
            self.assertNotIn("READY=1", text.split("\n"))
            self.assertNotIn("WATCHDOG=1", text.split("\n"))

    def test_watchdog_pings_stop_while_the_scheduler_is_wedged(self):
        d = self.start(extra_env={"FLEETWAVE_TEST_WEDGE": "1"})
        self.wait_message(d, "READY=1")
        wait_for(lambda: "test hook: FLEETWAVE_TEST_WEDGE=1" in d.log(), what=d.describe)

        def pings(start=0):
            return sum(1 for _, text in d.notify.snapshot()[start:]
                       if "WATCHDOG=1" in text.split("\n"))

        wait_for(lambda: pings() >= 3, what=lambda: "3 WATCHDOG=1 pings: " + d.describe())

        d.proc.send_signal(signal.SIGUSR1)
        wait_for(lambda: "scheduler thread blocked (2 of 2)" in d.log(), what=d.describe)
        # A ping answered just before the last thread blocked may still be reported (its
        # request waits up to one period; a loaded machine delays the thread): allow five
        # periods, then no ping for 15 periods.
        settle = time.monotonic() + 5 * PERIOD
        wait_for(lambda: time.monotonic() >= settle, what="the settle period")
        mark = d.notify.count()
        window_end = time.monotonic() + 15 * PERIOD
        wait_for(lambda: time.monotonic() >= window_end, what="the observation window")
        self.assertEqual(pings(mark), 0, "pings while wedged: " + d.describe())
        self.assertIsNone(d.proc.poll(), "the daemon died while wedged")

        d.proc.send_signal(signal.SIGUSR1)
        wait_for(lambda: "test hook: scheduler released" in d.log(), what=d.describe)
        wait_for(lambda: pings(mark) >= 2, what=lambda: "pings after release: " + d.describe())

        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        self.assertIsNotNone(d.notify.find("STOPPING=1"), d.describe())

    def test_stop_while_wedged_releases_and_exits_cleanly(self):
        d = self.start(extra_env={"FLEETWAVE_TEST_WEDGE": "1"})
        self.wait_message(d, "READY=1")
        wait_for(lambda: "test hook: FLEETWAVE_TEST_WEDGE=1" in d.log(), what=d.describe)
        d.proc.send_signal(signal.SIGUSR1)
        wait_for(lambda: "scheduler thread blocked (2 of 2)" in d.log(), what=d.describe)
        d.proc.send_signal(signal.SIGTERM)
        self.wait_message(d, "STOPPING=1")
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        self.assertIn("fleetwave run: stopped", d.log())

    def test_no_watchdog_pings_without_watchdog_usec(self):
        d = self.start(watchdog=False)
        ready = self.wait_message(d, "READY=1")
        d.proc.send_signal(signal.SIGHUP)
        self.wait_message(d, "READY=1", ready + 1)
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        for text in d.messages():
            self.assertNotIn("WATCHDOG=1", text.split("\n"))

    def test_exec_credential_plugin_runs_with_the_units_home(self):
        # fleetwave.service sets HOME=/var/lib/fleetwave (its state directory) because exec
        # credential plugins keep token caches under $HOME: the daemon's plugin child sees that
        # HOME, and the token it returns is never logged.
        home = tempfile.TemporaryDirectory(prefix="fleetwave-home-")
        self.addCleanup(home.cleanup)
        plugin = os.path.join(home.name, "plugin.sh")
        with open(plugin, "w") as f:
            f.write('#!/bin/sh\nprintf "%s" "$HOME" > "$HOME/plugin-ran"\n'
                    'printf \'{"apiVersion":"client.authentication.k8s.io/v1",'
                    '"kind":"ExecCredential","status":{"token":"plugin-token-7c1d"}}\'\n')
        os.chmod(plugin, 0o755)
        d = self.start(extra_env={"HOME": home.name},
                       user="{exec: {apiVersion: client.authentication.k8s.io/v1, command: %s, "
                            "interactiveMode: Never}}" % plugin)
        self.wait_message(d, "READY=1")
        marker = os.path.join(home.name, "plugin-ran")
        wait_for(lambda: os.path.exists(marker), what=lambda: "the plugin to run: " + d.describe())
        with open(marker) as f:
            self.assertEqual(f.read(), home.name)
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        self.assertNotIn("plugin-token-7c1d", d.log())

    def test_plain_run_without_notify_socket(self):
        # A JOURNAL_STREAM that is not our stderr (a shell started from a unit) keeps plain lines.
        d = self.start(notify=False, extra_env={"JOURNAL_STREAM": "1:1"})
        wait_for(lambda: "fleetwave run: API on" in d.log(), what=d.describe)
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=20), 0, d.describe())
        self.assertRegex(d.log(), r"(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ fleetwave run: stopped$")


if __name__ == "__main__":
    unittest.main()
