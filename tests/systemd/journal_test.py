"""The daemon's log in the systemd journal (tools/fleetwave/service_log.h), judged on the real
`fleetwave run` writing to a journal socket this test owns.

sd_journal_send always writes to /run/systemd/journal/socket, so the test runs its judge in a
private mount namespace (`unshare --mount`, root only): a tmpfs over /run/systemd there holds
the judge's AF_UNIX datagram socket at that path, and the host's /run is untouched. stderr is a
file whose device:inode is in JOURNAL_STREAM, as systemd sets it up for a service. Pinned:
  - every line arrives as a journal entry (MESSAGE without the plain log's timestamp,
    SYSLOG_IDENTIFIER=fleetwave, PRIORITY) and nothing is written to stderr;
  - the kubeconfig's insecure-skip-tls-verify warning has PRIORITY=4;
  - a cluster's line carries CLUSTER=c0;
  - the kubeconfig's bearer token appears in no entry;
  - SIGTERM still stops the daemon with status 0.
The judge waits on conditions with deadlines; nothing sleeps to synchronise.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

FLEETWAVE = os.environ.get("FLEETWAVE", "fleetwave")
TOKEN = "journal-test-bearer-token-5f3c"
JOURNAL_SOCKET = "/run/systemd/journal/socket"


def parse_native(data):
    """systemd's native journal protocol: KEY=value\\n, or KEY\\n<le64 size><value>\\n."""
    fields = {}
    i = 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            key, _, value = line.partition(b"=")
            i = nl + 1
        else:
            key = line
            (size,) = struct.unpack("<Q", data[nl + 1:nl + 9])
            value = data[nl + 9:nl + 9 + size]
            i = nl + 9 + size + 1
        fields[key.decode()] = value.decode()
    return fields


def judge(workdir):
    """Runs inside the private mount namespace; prints the entries and stderr as JSON."""
    subprocess.run(["mount", "-t", "tmpfs", "fleetwave-journal-test", "/run/systemd"],
                   check=True)
    os.makedirs(os.path.dirname(JOURNAL_SOCKET))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(JOURNAL_SOCKET)
    sock.settimeout(0.1)

    os.mkdir(os.path.join(workdir, "applicationsets"))
    with open(os.path.join(workdir, "kubeconfig.yaml"), "w") as f:
        f.write("apiVersion: v1\nkind: Config\n"
                "clusters: [{name: c0, cluster: {server: 'https://127.0.0.1:9', "
                "insecure-skip-tls-verify: true}}]\n"
                "contexts: [{name: c0, context: {cluster: c0, user: u0}}]\n"
                "users: [{name: u0, user: {token: %s}}]\ncurrent-context: c0\n" % TOKEN)
    with open(os.path.join(workdir, "fleetwave.yaml"), "w") as f:
        f.write("kubeconfig: kubeconfig.yaml\napplicationSets: applicationsets\n"
                "state: sqlite://state.db\n"
                "listen: {api: '127.0.0.1:0', metrics: '127.0.0.1:0'}\n")
    stderr_path = os.path.join(workdir, "stderr")
    stderr = open(stderr_path, "w")
    st = os.fstat(stderr.fileno())
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env["JOURNAL_STREAM"] = "%d:%d" % (st.st_dev, st.st_ino)
    proc = subprocess.Popen([FLEETWAVE, "run", "--config", os.path.join(workdir, "fleetwave.yaml")],
                            stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    entries = []

    def collect_until(predicate, timeout):
        deadline = time.monotonic() + timeout
        while not predicate() and time.monotonic() < deadline:
            try:
                entries.append(parse_native(sock.recv(1 << 20)))
            except socket.timeout:
                pass

    def seen(pred):
        return lambda: any(pred(e) for e in entries)

    # The cluster's "unreachable" line comes after its third failed probe.
    collect_until(lambda: seen(lambda e: "unreachable" in e.get("MESSAGE", ""))()
                  and seen(lambda e: e.get("PRIORITY") == "4")(), 90)
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    collect_until(seen(lambda e: e.get("MESSAGE") == "fleetwave run: stopped"), 10)
    stderr.close()
    with open(stderr_path) as f:
        print(json.dumps({"entries": entries, "stderr": f.read(), "exit": code}))


class JournalTest(unittest.TestCase):
    def test_lines_reach_the_journal_with_fields(self):
        with tempfile.TemporaryDirectory(prefix="fleetwave-journal-") as workdir:
            out = subprocess.run(["unshare", "--mount", "--propagation", "private",
                                  sys.executable, os.path.abspath(__file__), "--judge", workdir],
                                 capture_output=True, text=True, timeout=200)
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        entries = result["entries"]
        describe = json.dumps(entries, indent=1)[-4000:]
        self.assertEqual(result["exit"], 0, describe)
        self.assertEqual(result["stderr"], "", "plain lines written beside the journal")
        self.assertTrue(entries)
        for e in entries:
            self.assertEqual(e.get("SYSLOG_IDENTIFIER"), "fleetwave", e)
            self.assertIn(e.get("PRIORITY"), ("3", "4", "6"), e)
            self.assertNotRegex(e["MESSAGE"], r"^\d{4}-\d\d-\d\dT", e)  # the journal stamps it
        warnings = [e for e in entries if e["MESSAGE"].startswith("warning:")]
        self.assertTrue(warnings, describe)
        self.assertTrue(all(e["PRIORITY"] == "4" for e in warnings), warnings)
        self.assertTrue(any("insecure-skip-tls-verify" in e["MESSAGE"] for e in warnings))
        cluster = [e for e in entries if e.get("CLUSTER") == "c0"]
        self.assertTrue(cluster, describe)
        self.assertTrue(all("cluster=c0" in e["MESSAGE"] for e in cluster))
        unreachable = [e for e in cluster if "unreachable" in e["MESSAGE"]]
        self.assertTrue(unreachable and all(e["PRIORITY"] == "4" for e in unreachable), cluster)
        self.assertFalse(any(k.startswith("CODE_") for e in entries for k in e), entries[0])
        self.assertIn("fleetwave run: stopped", [e["MESSAGE"] for e in entries])
        self.assertNotIn(TOKEN, json.dumps(entries))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--judge":
        judge(sys.argv[2])
    else:
        unittest.main()
