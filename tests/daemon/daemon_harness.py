"""The end-to-end harness of `fleetwave run` (issue 13's acceptance): a kubesim on a free port,
a local git repository of manifests, a config directory, the daemon, and readers for what a
test judges — the daemon's HTTP API and log, kubesim's audit (every mutating request) and its
controller events.

Every wait is a poll on a condition with a deadline (wait_for); nothing sleeps to synchronise.
Each DaemonEnv lives in its own temporary directory with its own ports, so suites can run in
parallel. Set DAEMON_E2E_KEEP=1 to keep the directory (logs, state db, repo) of every run.
"""
import calendar
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "kubesim"))

from kubesim_harness import Kubesim  # noqa: E402

FLEETWAVE = os.environ.get("FLEETWAVE", "fleetwave")
GUESTBOOK_MANIFESTS = os.path.join(SOURCE_DIR, "examples", "guestbook", "manifests")
COMPLETED = "ApplicationSet Rollout has completed"
# The manifests' image; tests replace it to make new revisions (or failing ones).
GUESTBOOK_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:0.2"
# Objects fleetwave writes to a cluster (kubesim's audit `resource` values).
APPLIED_RESOURCES = ("namespaces", "services", "deployments", "configmaps")


def wait_for(predicate, timeout=30.0, interval=0.05, what="condition"):
    """Polls `predicate` until it returns a truthy value (returned) or the deadline passes.
    `what` may be a callable, evaluated only on timeout (so it can show the state then)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0fs waiting for %s"
                                 % (timeout, what() if callable(what) else what))
        time.sleep(interval)


def series_value(text, metric, labels):
    """The value of `metric{labels...}` in an exposition, or None when it is absent."""
    for line in text.splitlines():
        if not line.startswith(metric + "{"):
            continue
        series, _, value = line.rpartition(" ")
        got = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', series))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(value)
    return None


def parse_time(text):
    """kubesim's RFC 3339 time with milliseconds ("2026-12-01T01:02:03.456Z") -> epoch seconds."""
    base, _, frac = text.rstrip("Z").partition(".")
    seconds = calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S"))
    return seconds + (float("0." + frac) if frac else 0.0)


def json_lines(text):
    if isinstance(text, (list, dict)):
        return text if isinstance(text, list) else [text]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="e2e", GIT_AUTHOR_EMAIL="e2e@example.com",
               GIT_COMMITTER_NAME="e2e", GIT_COMMITTER_EMAIL="e2e@example.com")
    out = subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True,
                         env=env)
    if out.returncode != 0:
        raise AssertionError("git %s failed: %s" % (" ".join(args), out.stderr))
    return out.stdout.strip()


def appset_yaml(name, elements, steps=None, path="guestbook", repo_url="", strategy="RollingSync",
                sync_policy=None):
    """An ApplicationSet with a list generator of {cluster, url, env} elements; its apps are
    '<cluster>-<name>' labelled envLabel=<env>. `steps` is a list of (env values, maxUpdate or
    None) for RollingSync."""
    template_spec = {
        "project": "default",
        "source": {"repoURL": repo_url, "targetRevision": "HEAD", "path": path},
        "destination": {"server": "{{.url}}", "namespace": name},
        "syncPolicy": dict(sync_policy or {}, syncOptions=["CreateNamespace=true"]),
    }
    spec = {
        "generators": [{"list": {"elements": elements}}],
        "goTemplate": True,
        "goTemplateOptions": ["missingkey=error"],
        "template": {"metadata": {"name": "{{.cluster}}-" + name,
                                  "labels": {"envLabel": "{{.env}}"}},
                     "spec": template_spec},
    }
    if strategy == "RollingSync":
        rolling = []
        for envs, max_update in steps:
            step = {"matchExpressions": [{"key": "envLabel", "operator": "In",
                                          "values": list(envs)}]}
            if max_update is not None:
                step["maxUpdate"] = max_update
            rolling.append(step)
        spec["strategy"] = {"type": "RollingSync", "rollingSync": {"steps": rolling}}
    elif strategy:
        spec["strategy"] = {"type": strategy}
    doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
           "metadata": {"name": name, "namespace": "fleetwave"}, "spec": spec}
    return yaml.safe_dump(doc, sort_keys=False)


class DaemonEnv:
    """kubesim + a git repository + a config directory + `fleetwave run`.

    clusters: number of simulated clusters (sim-0..); cluster_labels: name -> labels for
    fleetwave.yaml. After start(), add appsets with write_appset() before or after the daemon
    starts (the daemon watches the directory).
    """

    def __init__(self, clusters=3, kubesim_args=(), image=GUESTBOOK_IMAGE, poll_interval="1s",
                 replicas=None, progress_deadline=None, state=None, extra_config=None):
        """`state`: the `state:` URL (default: an SQLite file in the temporary directory);
        `extra_config`: more top-level fleetwave.yaml fields."""
        self._state = state
        self._extra_config = extra_config or {}
        self.dir = tempfile.mkdtemp(prefix="fleetwave-e2e-")
        self.kubesim = Kubesim(*kubesim_args, clusters=clusters)
        self.clusters = ["sim-%d" % i for i in range(clusters)]
        self.repo = os.path.join(self.dir, "repo")
        self.repo_url = "file://" + self.repo
        self.config_dir = os.path.join(self.dir, "config")
        self.appsets_dir = os.path.join(self.config_dir, "appsets")
        os.makedirs(self.appsets_dir)
        # The API listens on port 0 and the harness reads the bound port from the daemon's log
        # after every start: a port picked here and bound later could be taken meanwhile by a
        # test running in parallel (a restarted daemon re-binds, so it may move).
        self.api = None
        self.token = "e2e-token-%d" % random.randrange(1 << 30)
        self.log_path = os.path.join(self.dir, "daemon.log")
        self.proc = None
        self.starts = 0
        self._make_repo(image, replicas, progress_deadline)
        self._write_config(poll_interval)

    # --- inputs ----------------------------------------------------------------------------

    def _make_repo(self, image, replicas, progress_deadline):
        shutil.copytree(GUESTBOOK_MANIFESTS, self.repo)
        git(self.repo, "init", "-q", "-b", "main")
        self.set_manifest(image=image, replicas=replicas, progress_deadline=progress_deadline,
                          commit=False)
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "guestbook")

    def manifest_path(self):
        return os.path.join(self.repo, "guestbook", "guestbook.yaml")

    def set_manifest(self, image=None, replicas=None, progress_deadline=None, commit=True):
        """Rewrites the guestbook Deployment; commits and returns the new HEAD when `commit`."""
        with open(self.manifest_path()) as f:
            docs = list(yaml.safe_load_all(f))
        for d in docs:
            if d and d.get("kind") == "Deployment":
                if image:
                    d["spec"]["template"]["spec"]["containers"][0]["image"] = image
                if replicas is not None:
                    d["spec"]["replicas"] = replicas
                if progress_deadline is not None:
                    d["spec"]["progressDeadlineSeconds"] = progress_deadline
        with open(self.manifest_path(), "w") as f:
            yaml.safe_dump_all(docs, f, sort_keys=False)
        if commit:
            return self.commit("manifest change", "guestbook/guestbook.yaml")
        return None

    def commit(self, message, *paths):
        git(self.repo, "add", *paths)
        git(self.repo, "commit", "-q", "-m", message)
        return self.head()

    def head(self):
        return git(self.repo, "rev-parse", "HEAD")

    def _write_config(self, poll_interval):
        token_file = os.path.join(self.config_dir, "token")
        with open(token_file, "w") as f:
            f.write(self.token + "\n")
        os.chmod(token_file, 0o600)
        shutil.copy(self.kubesim.kubeconfig, os.path.join(self.config_dir, "kubeconfig"))
        config = {
            "kubeconfig": "kubeconfig",
            "clusters": [{"name": c, "labels": {"index": c.split("-")[1]}}
                         for c in self.clusters],
            "applicationSets": "appsets",
            "state": self._state or "sqlite://" + os.path.join(self.dir, "state.db"),
            "apiTokenFile": "token",
            "listen": {"api": "127.0.0.1:0", "metrics": "127.0.0.1:0"},
            "git": {"pollInterval": poll_interval},
        }
        config.update(self._extra_config)
        self.config_path = os.path.join(self.config_dir, "fleetwave.yaml")
        with open(self.config_path, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)

    def url(self, cluster):
        return self.kubesim.server(cluster)

    def elements(self, envs):
        """List generator elements: envs[i] is the env label of cluster sim-i."""
        return [{"cluster": c, "url": self.url(c), "env": env}
                for c, env in zip(self.clusters, envs)]

    def write_appset(self, file_name, text):
        # Written aside and renamed in, so the daemon's directory watch never reads half a file.
        tmp = os.path.join(self.dir, file_name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, os.path.join(self.appsets_dir, file_name))

    # --- the daemon -------------------------------------------------------------------------

    def start(self, ready_timeout=30.0, env=None):
        """`env`: the daemon's environment instead of this process's (e.g. a PATH with a fake
        kubectl)."""
        assert self.proc is None or self.proc.poll() is not None
        self.starts += 1
        self.api = None
        log = open(self.log_path, "a")
        log.write("=== start %d ===\n" % self.starts)
        log.flush()
        self.proc = subprocess.Popen([FLEETWAVE, "run", "--config", self.config_path],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                     env=env)
        log.close()
        wait_for(lambda: self._ready(), timeout=ready_timeout, interval=0.05,
                 what=lambda: "the daemon's /readyz; log:\n" + self.log_tail())

    def _ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("the daemon exited with %s; log:\n%s"
                                 % (self.proc.returncode, self.log_tail()))
        if self.api is None:
            # "... api: listening on 127.0.0.1:PORT (port PORT)" (or "(port PORT, http)") after
            # this start's marker.
            this_start = self.log().split("=== start %d ===" % self.starts, 1)[-1]
            m = re.search(r"api: listening on \S+ \(port (\d+)[,)]", this_start)
            if not m:
                return False
            self.api = "http://127.0.0.1:%s" % m.group(1)
        status, _ = self.http("GET", "/readyz")
        return status == 200

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        """SIGTERM, and the daemon must end cleanly: exit status 0 within 15 s. Under ASan a
        leak or an error found at exit makes the status non-zero, so every suite that stops
        its daemon this way is also a LeakSanitizer run of the whole daemon."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            code = self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the daemon did not stop within 15 s of SIGTERM; log:\n"
                                 + self.log_tail())
        if code != 0:
            raise AssertionError("the daemon exited with %s after SIGTERM; log:\n%s"
                                 % (code, self.log_tail(120)))

    def close(self):
        keep = os.environ.get("DAEMON_E2E_KEEP")
        try:
            self.stop()
        finally:
            if keep:
                self._save_kubesim_records()
            self.kubesim.stop()
        if keep:
            print("daemon e2e files kept in", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _save_kubesim_records(self):
        """Kept runs keep kubesim's audit and events too: they are what the judgements read."""
        for name in ("audit", "events"):
            try:
                status, body = self.kubesim.admin("GET", "/kubesim/%s?cluster=" % name)
            except OSError as e:
                print("kubesim %s not kept: %s" % (name, e))
                continue
            with open(os.path.join(self.dir, "kubesim-%s.jsonl" % name), "w") as f:
                f.write(body if isinstance(body, str) else json.dumps(body))

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def log_tail(self, lines=60):
        return "\n".join(self.log().splitlines()[-lines:])

    # --- the daemon's API -------------------------------------------------------------------

    def http(self, method, path, token=None, body=None):
        req = urllib.request.Request(self.api + path, method=method,
                                     data=(json.dumps(body).encode() if body is not None
                                           else (b"" if method == "POST" else None)))
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                raw, status = resp.read().decode(), resp.status
        except urllib.error.HTTPError as e:
            raw, status = e.read().decode(), e.code
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            return 0, None
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw

    def cli(self, *args):
        """`fleetwave ARGS...` against this daemon's API with its token, without colour; its
        standard output. A non-zero exit fails the test with what the command printed."""
        token_file = os.path.join(self.config_dir, "token")
        out = subprocess.run([FLEETWAVE] + list(args) + ["--server", self.api,
                                                        "--token-file", token_file],
                             capture_output=True, text=True, timeout=30,
                             env=dict(os.environ, NO_COLOR="1"))
        if out.returncode != 0:
            raise AssertionError("fleetwave %s exited with %d:\n%s%s"
                                 % (" ".join(args), out.returncode, out.stdout, out.stderr))
        return out.stdout

    def get(self, path):
        status, body = self.http("GET", path)
        if status != 200:
            return None
        return body

    def appset(self, name):
        return self.get("/api/v1/applicationsets/" + name)

    def appsets(self):
        return self.get("/api/v1/applicationsets")

    def application(self, name):
        return self.get("/api/v1/applications/" + name)

    def applications(self):
        body = self.get("/api/v1/applications")
        return body.get("items", []) if isinstance(body, dict) else []

    def sync(self, app):
        status, body = self.http("POST", "/api/v1/applications/%s/sync" % app, token=self.token)
        if status not in (200, 202):
            raise AssertionError("sync of %s: HTTP %s %s" % (app, status, body))
        return body

    def tcp_sockets(self):
        """The daemon's own TCP sockets: the rows of /proc/PID/net/tcp and tcp6 (split into
        columns) whose inode is one of its open file descriptors."""
        inodes = set()
        fd_dir = "/proc/%d/fd" % self.proc.pid
        for fd in os.listdir(fd_dir):
            try:
                m = re.match(r"socket:\[(\d+)\]", os.readlink(os.path.join(fd_dir, fd)))
            except OSError:
                continue  # closed meanwhile
            if m:
                inodes.add(m.group(1))
        rows = []
        for table in ("tcp", "tcp6"):
            with open("/proc/%d/net/%s" % (self.proc.pid, table)) as f:
                rows += [line.split() for line in f.read().splitlines()[1:]]
        return [r for r in rows if r[9] in inodes]

    def metrics_port(self):
        """The daemon's /metrics port: it listens on port 0 and does not log the port it got,
        so this is the daemon's listening TCP socket that is not the API's (/proc)."""
        api_port = int(self.api.rsplit(":", 1)[1])
        for cols in self.tcp_sockets():
            port = int(cols[1].rsplit(":", 1)[1], 16)
            if cols[3] == "0A" and port != api_port:
                return port
        raise AssertionError("the daemon listens on no metrics port")

    def thread_nices(self):
        """(name, nice) of each of the daemon's threads, from /proc/PID/task/*/stat."""
        out = []
        task_dir = "/proc/%d/task" % self.proc.pid
        for tid in os.listdir(task_dir):
            try:
                with open(os.path.join(task_dir, tid, "stat")) as f:
                    stat = f.read()
            except OSError:
                continue  # the thread ended meanwhile
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            out.append((name, int(fields[16])))  # field 19 of proc(5), counted from state
        return out

    def metrics_text(self):
        url = "http://127.0.0.1:%d/metrics" % self.metrics_port()
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.read().decode()

    def rollout_completed(self, name):
        s = self.appset(name)
        if not s:
            return False
        for c in (s.get("status") or {}).get("conditions") or []:
            # Argo's shape: RolloutProgressing turns False with reason
            # ApplicationSetRolloutComplete and this message.
            if c.get("type") == "RolloutProgressing" and c.get("message") == COMPLETED:
                return True
        return False

    def app_statuses(self, appset):
        """Per app, the set's status.applicationStatus entry (status: Waiting|Pending|
        Progressing|Healthy, step)."""
        s = self.appset(appset) or {}
        return {e.get("application"): e
                for e in (s.get("status") or {}).get("applicationStatus") or []}

    def wait_completed(self, name, timeout=60.0):
        wait_for(lambda: self.rollout_completed(name), timeout=timeout, interval=0.1,
                 what=lambda: "rollout of %s to complete; status: %s\nlog:\n%s"
                 % (name, json.dumps(self.appset(name)), self.log_tail()))

    def synced_to(self, revision, count=None):
        """Every Application reports sync.revision == revision, Synced and Healthy (and there
        are `count` of them when given)."""
        apps = self.applications()
        if not apps or (count is not None and len(apps) != count):
            return False
        for a in apps:
            status = a.get("status") or {}
            sync = status.get("sync") or {}
            if (sync.get("revision") != revision or sync.get("status") != "Synced"
                    or (status.get("health") or {}).get("status") != "Healthy"):
                return False
        return True

    def wait_completed_at(self, revision, name, timeout=60.0):
        """The set's rollout completed with every app Synced and Healthy at `revision` (the
        completed condition alone may still be the previous rollout's)."""
        wait_for(lambda: self.synced_to(revision) and self.rollout_completed(name)
                 and all(tuple(e.get("targetRevisions") or ()) == (revision,)
                         for e in self.app_statuses(name).values()),
                 timeout=timeout, interval=0.1,
                 what=lambda: "rollout of %s at %s to complete; status: %s\nlog:\n%s"
                 % (name, revision, json.dumps(self.appset(name)), self.log_tail()))

    # --- kubesim's audit and events ---------------------------------------------------------

    def audit(self, cluster=""):
        status, body = self.kubesim.admin("GET", "/kubesim/audit?cluster=" + cluster)
        assert status == 200, body
        return json_lines(body)

    def events(self, cluster=""):
        status, body = self.kubesim.admin("GET", "/kubesim/events?cluster=" + cluster)
        assert status == 200, body
        return json_lines(body)

    def fault(self, cluster, **fields):
        status, body = self.kubesim.admin("POST", "/kubesim/faults", dict(fields, cluster=cluster))
        assert status == 200, (status, body)

    def clear_faults(self, cluster):
        self.kubesim.admin("DELETE", "/kubesim/faults?cluster=" + cluster)

    def applies(self, cluster=None):
        """fleetwave's successful writes to the clusters, in order: audit records of a 2xx
        create/update/patch of an object kind fleetwave applies (kubesim's own controllers
        never appear in the audit: it records client requests only)."""
        out = []
        for a in self.audit(cluster or ""):
            if str(a.get("verb", "")).lower() in ("patch", "put", "post", "create", "update") \
                    and 200 <= a.get("code", 0) < 300 \
                    and a.get("resource") in APPLIED_RESOURCES and not a.get("dryRun"):
                a["t"] = parse_time(a["time"])
                out.append(a)
        return out

    def available_events(self):
        out = []
        for e in self.events():
            if e.get("kind") == "Deployment" and e.get("event") == "available":
                e["t"] = parse_time(e["time"])
                out.append(e)
        return out


# --- judgements over audit and events ---------------------------------------------------------

def object_key(a):
    return (a["cluster"], a["resource"], a.get("namespace", ""), a["name"])


def content_of(a):
    """What an audited write put on the object: fleetwave's applied hash, else the body's."""
    return (a.get("annotations") or {}).get("fleetwave.io/applied-hash") or a.get("bodyHash")


def repeated_applies(applies):
    """The writes that repeated the content the object's previous write had put there (a
    duplicate apply), one line each."""
    last, repeats = {}, []
    for a in applies:
        key, content = object_key(a), content_of(a)
        if last.get(key) == content:
            repeats.append("%s re-applied at %s with the content already live (%s)"
                           % (key, a["time"], content))
        last[key] = content
    return repeats


def available_at(events, cluster, namespace, name, generation, after):
    """The first time (>= `after`) the Deployment was available at `generation` or later."""
    for e in events:
        if (e["cluster"] == cluster and e.get("namespace") == namespace and e["name"] == name
                and e["t"] >= after and (e.get("generation") or 0) >= (generation or 0)):
            return e["t"]
    return None


def check_wave_order(applies, events, steps, since=0.0):
    """Every apply (after `since`) to a cluster of step k comes after every Deployment of the
    steps before k was applied (after `since`) and then became available at the generation
    that apply produced. `steps` lists per step the clusters of its apps. Returns the list of
    violations (empty when the order holds)."""
    violations = []
    applies = [a for a in applies if a["t"] >= since]
    deployments = [a for a in applies if a["resource"] == "deployments"]
    step_of = {c: k for k, clusters in enumerate(steps) for c in clusters}
    for a in applies:
        k = step_of.get(a["cluster"])
        if not k:
            continue
        for earlier in steps[:k]:
            for c in earlier:
                before = [d for d in deployments if d["cluster"] == c and d["t"] <= a["t"]]
                if not before:
                    violations.append("%s %s/%s applied at %s before any apply to step-%d "
                                      "cluster %s" % (a["cluster"], a["resource"], a["name"],
                                                      a["time"], step_of[c] + 1, c))
                    continue
                last = before[-1]
                t = available_at(events, c, last.get("namespace", ""), last["name"],
                                 last.get("generation"), last["t"])
                if t is None or t > a["t"]:
                    violations.append("%s %s/%s applied at %s before %s's Deployment (applied "
                                      "%s, generation %s) was available"
                                      % (a["cluster"], a["resource"], a["name"], a["time"], c,
                                         last["time"], last.get("generation")))
    return violations


def max_in_flight(applies, events):
    """The largest number of apps promoted and not yet available at any instant, and the
    clusters whose app never became available. An app's interval is [its first write, its
    Deployment's first `available` event at the generation of its first Deployment write); at
    equal times an availability is counted before a promotion (the daemon can only promote after
    it saw the availability)."""
    edges = []
    unfinished = []
    by_cluster = {}
    for a in applies:
        by_cluster.setdefault(a["cluster"], []).append(a)
    for cluster, writes in by_cluster.items():
        start = writes[0]["t"]
        deployments = [w for w in writes if w["resource"] == "deployments"]
        end = None
        if deployments:
            d = deployments[0]
            end = available_at(events, cluster, d.get("namespace", ""), d["name"],
                               d.get("generation"), d["t"])
        if end is None:
            unfinished.append(cluster)
            end = float("inf")
        edges.append((start, 1))
        edges.append((end, -1))
    edges.sort(key=lambda e: (e[0], e[1]))  # -1 (available) before +1 (promoted) at a tie
    current = peak = 0
    for _, delta in edges:
        current += delta
        peak = max(peak, current)
    return peak, unfinished


def check_max_update(applies, events, steps, max_updates, since=0.0):
    """Per step with a maxUpdate (an app count; None: no limit), at no instant were more of its
    apps promoted and not yet available than it allows, and every app of it became available.
    `steps` lists per step the clusters of its apps (one app per cluster), `max_updates` the
    steps' limits in the same order. Judged from the writes after `since` (one rollout).
    Returns the list of violations (empty when the limits held)."""
    violations = []
    applies = [a for a in applies if a["t"] >= since]
    for k, (clusters, limit) in enumerate(zip(steps, max_updates)):
        if limit is None:
            continue
        mine = [a for a in applies if a["cluster"] in clusters]
        peak, unfinished = max_in_flight(mine, events)
        if peak > limit:
            violations.append("step %d (%s): %d apps in flight at once, maxUpdate %d"
                              % (k + 1, ",".join(clusters), peak, limit))
        if unfinished:
            violations.append("step %d: apps never available on %s" % (k + 1, unfinished))
    return violations
