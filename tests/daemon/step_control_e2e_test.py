"""Issue 14's step-control acceptance against kubesim with the real daemon: a step deadline, a
pause at step 2 and its resume, and the skip of a dead cluster's app — each with the exact
RolloutProgressing condition (RollingSync §7: Paused > ProgressDeadlineExceeded > Modified >
Complete) and status.rollout read from the API, and each surviving `kill -9` and a restart.

Times: the daemon decides on second-truncated wall time and kubesim's audit uses this machine's
wall clock, so a step's deadline is `stepStartedAt + progressDeadlineSeconds + pausedSeconds`
and is checked against time.time() at the poll that first sees the condition: never before,
at most ~2 s after (the timer's budget) plus the poll's latency.
"""
import time
import unittest

import yaml

from daemon_harness import DaemonEnv, appset_yaml, parse_time, wait_for

DEV, QA, PROD = "sim-0", "sim-1", "sim-2"
FAIL_IMAGE = "gcr.io/heptio-images/ks-guestbook-demo:fail"
GUESTBOOK_NEXT = "gcr.io/heptio-images/ks-guestbook-demo:0.3"
# The timer fires at most 2 s late; the rest covers one poll of the API.
LATE = 2.5


def with_step_deadlines(text, deadlines):
    """The ApplicationSet `text` with steps[i].progressDeadlineSeconds = deadlines[i] (None:
    no deadline)."""
    doc = yaml.safe_load(text)
    for step, seconds in zip(doc["spec"]["strategy"]["rollingSync"]["steps"], deadlines):
        if seconds is not None:
            step["progressDeadlineSeconds"] = seconds
    return yaml.safe_dump(doc, sort_keys=False)


def status_of(env, name):
    return (env.appset(name) or {}).get("status") or {}


def rollout_of(env, name):
    return status_of(env, name).get("rollout") or {}


def progressing_of(env, name):
    for c in status_of(env, name).get("conditions") or []:
        if c.get("type") == "RolloutProgressing":
            return c
    return {}


def condition_key(c):
    return (c.get("status"), c.get("reason"), c.get("message"))


def modified(step):
    return ("True", "ApplicationSetModified", "ApplicationSet is performing rollout of step %d"
            % step)


def exceeded(step):
    return ("False", "ProgressDeadlineExceeded",
            "ApplicationSet rollout step %d has timed out progressing" % step)


def paused(step):
    return ("False", "ApplicationSetPaused", "ApplicationSet rollout is paused at step %d" % step)


COMPLETE = ("False", "ApplicationSetRolloutComplete", "ApplicationSet Rollout has completed")


def post(env, path, body=None):
    status, reply = env.http("POST", path, token=env.token, body=body)
    if status not in (200, 202):
        raise AssertionError("POST %s: HTTP %s %s" % (path, status, reply))
    return reply


def wait_until(t):
    """Lets wall time reach `t`: the test's input (how long a state is held), not a
    synchronisation — what must hold meanwhile is asserted by the caller's polls."""
    while time.time() < t:
        time.sleep(min(0.05, max(0.0, t - time.time())))


def metric_value(env, name, **labels):
    """The value of the daemon's /metrics series `name{labels}`, or None when absent."""
    text = env.metrics_text()
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        series, _, value = line.rpartition(" ")
        got = dict(kv.split("=", 1) for kv in series[len(name) + 1:-1].split(",") if "=" in kv)
        got = {k: v.strip('"') for k, v in got.items()}
        if all(got.get(k) == v for k, v in labels.items()):
            return float(value)
    return None


class StepDeadline(unittest.TestCase):
    def test_deadline_fires_on_the_original_step_clock_across_a_restart(self):
        # Step 1's app never becomes healthy (kubesim never readies a `fail` image); step 1 has
        # a 6 s deadline. The daemon is killed 3 s into the step: a reset clock would fire at
        # the earliest 9 s after the step started, the continued one fires at 6 s.
        deadline = 6
        env = DaemonEnv(clusters=2, image=FAIL_IMAGE)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", with_step_deadlines(appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa"]),
            steps=[(["env-dev"], None), (["env-qa"], None)], repo_url=env.repo_url),
            [deadline, None]))
        env.start()

        r = wait_for(lambda: (rollout_of(env, "guestbook").get("step") == 1
                              and rollout_of(env, "guestbook")), timeout=30,
                     what=lambda: "step 1 current\n" + env.log_tail())
        started = parse_time(r["stepStartedAt"])
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), modified(1))

        wait_until(started + 3)
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), modified(1),
                         "exceeded before the deadline")
        env.kill9()
        env.start()

        def fired():
            c = progressing_of(env, "guestbook")
            now = time.time()
            if condition_key(c) == exceeded(1):
                return now
            self.assertLess(now, started + deadline + LATE,
                            "no ProgressDeadlineExceeded by then: %s" % c)
            return None
        seen = wait_for(fired, timeout=30, interval=0.05,
                        what=lambda: "ProgressDeadlineExceeded\n" + env.log_tail())
        self.assertGreaterEqual(seen, started + deadline, "the step deadline fired early")
        r = rollout_of(env, "guestbook")
        self.assertEqual(parse_time(r["stepStartedAt"]), started,
                         "the restart reset the step clock: %s" % r)
        self.assertEqual(r.get("step"), 1)
        self.assertIs(r.get("stepDeadlineExceeded"), True)
        c = progressing_of(env, "guestbook")
        transition = parse_time(c["lastTransitionTime"])
        self.assertGreaterEqual(transition, started + deadline)
        self.assertLessEqual(transition, started + deadline + 2)
        # The metric the FleetwaveRolloutStalled alert reads.
        self.assertEqual(metric_value(env, "fleetwave_applicationset_condition",
                                      appset="guestbook", type="RolloutProgressing",
                                      status="False", reason="ProgressDeadlineExceeded"), 1.0)
        # Expiry only reports: step 2 was never promoted.
        self.assertEqual(env.applies(QA), [])

        # The exceeded state is durable too: after another restart the same condition, with
        # the same transition time, and still nothing written to step 2's cluster.
        env.kill9()
        env.start()
        wait_for(lambda: progressing_of(env, "guestbook"), timeout=30,
                 what=lambda: "the set's status after the second restart\n" + env.log_tail())
        c = progressing_of(env, "guestbook")
        self.assertEqual(condition_key(c), exceeded(1))
        self.assertEqual(parse_time(c["lastTransitionTime"]), transition)
        self.assertEqual(parse_time(rollout_of(env, "guestbook")["stepStartedAt"]), started)
        self.assertEqual(env.applies(QA), [])


class PauseResume(unittest.TestCase):
    def test_pause_at_step_two_then_resume(self):
        # Step 2 (qa) has maxUpdate 0, so the rollout stays at step 2 until qa is synced by
        # hand, and a 6 s deadline.
        deadline = 6
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        env.write_appset("guestbook.yaml", with_step_deadlines(appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], 0), (["env-prod"], None)],
            repo_url=env.repo_url), [None, deadline, None]))
        env.start()
        qa_app, prod_app = QA + "-guestbook", PROD + "-guestbook"

        def no_promotion():
            self.assertEqual(env.applies(PROD), [], "step 3 was written while paused")

        r = wait_for(lambda: (rollout_of(env, "guestbook").get("step") == 2
                              and rollout_of(env, "guestbook")), timeout=30,
                     what=lambda: "step 2 current\n" + env.log_tail())
        step2 = parse_time(r["stepStartedAt"])
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), modified(2))

        # --- pause 1 s into step 2, then a restart while paused ---
        wait_until(step2 + 1)
        post(env, "/api/v1/applicationsets/guestbook/pause")
        wait_for(lambda: condition_key(progressing_of(env, "guestbook")) == paused(2),
                 timeout=10, what=lambda: "paused at step 2: %s\n%s"
                 % (progressing_of(env, "guestbook"), env.log_tail()))
        r = rollout_of(env, "guestbook")
        self.assertIs(r.get("paused"), True)
        paused_at = parse_time(r["pausedAt"])
        self.assertEqual(env.applies(QA), [])
        env.kill9()
        env.start()
        wait_for(lambda: progressing_of(env, "guestbook"), timeout=30,
                 what=lambda: "the set's status after the restart\n" + env.log_tail())
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), paused(2))
        r = rollout_of(env, "guestbook")
        self.assertIs(r.get("paused"), True)
        self.assertEqual(parse_time(r["pausedAt"]), paused_at)
        self.assertEqual(parse_time(r["stepStartedAt"]), step2)

        # --- held paused well past the unpaused deadline: it never expires ---
        hold_until = step2 + deadline + 3
        while time.time() < hold_until:
            self.assertEqual(condition_key(progressing_of(env, "guestbook")), paused(2))
            self.assertIsNot(rollout_of(env, "guestbook").get("stepDeadlineExceeded"), True,
                             "paused time counted toward the step deadline")
            no_promotion()
            time.sleep(0.1)

        # --- resume: the deadline fires after the time that remained at the pause ---
        post(env, "/api/v1/applicationsets/guestbook/resume")
        r = wait_for(lambda: (not rollout_of(env, "guestbook").get("paused")
                              and rollout_of(env, "guestbook")), timeout=10,
                     what=lambda: "resumed\n" + env.log_tail())
        paused_seconds = r.get("pausedSeconds", 0)
        self.assertGreaterEqual(paused_seconds, hold_until - paused_at - 1)
        due = step2 + deadline + paused_seconds

        def fired():
            key, now = condition_key(progressing_of(env, "guestbook")), time.time()
            if key == exceeded(2):
                return now
            self.assertEqual(key, modified(2))
            self.assertLess(now, due + LATE, "no ProgressDeadlineExceeded by then")
            return None
        seen = wait_for(fired, timeout=30, interval=0.05,
                        what=lambda: "ProgressDeadlineExceeded at step 2\n" + env.log_tail())
        self.assertGreaterEqual(seen, due, "paused time was counted toward the deadline")
        self.assertEqual(parse_time(rollout_of(env, "guestbook")["stepStartedAt"]), step2)
        no_promotion()

        # --- pause again (Paused outranks ProgressDeadlineExceeded); a sync that runs when the
        # pause comes finishes, and a manual sync still works while paused ---
        # Every request to qa's cluster takes 500 ms, so qa's sync is still running when the
        # pause lands.
        env.fault(QA, latencyMs=500)
        env.sync(qa_app)
        wait_for(lambda: ((env.application(qa_app) or {}).get("status", {})
                          .get("operationState", {}).get("phase") == "Running"),
                 timeout=10, interval=0.02, what=lambda: "qa's manual sync running\n"
                 + env.log_tail())
        post(env, "/api/v1/applicationsets/guestbook/pause")
        paused_again = time.time()
        wait_for(lambda: condition_key(progressing_of(env, "guestbook")) in (paused(2), paused(3)),
                 timeout=10, what=lambda: "paused again: %s" % progressing_of(env, "guestbook"))

        def qa_done():
            no_promotion()
            st = (env.application(qa_app) or {}).get("status", {})
            return (st.get("operationState", {}).get("phase") == "Succeeded"
                    and st.get("health", {}).get("status") == "Healthy")
        wait_for(qa_done, timeout=30, what=lambda: "qa's sync finished while paused\n"
                 + env.log_tail())
        env.clear_faults(QA)
        # The sync that was running went on writing after the pause.
        qa_writes = env.applies(QA)
        self.assertTrue([a for a in qa_writes if a["resource"] == "deployments"])
        self.assertGreater(max(a["t"] for a in qa_writes), paused_again,
                           "qa's sync was not running when the pause landed")
        # Step 2 is complete now, so the rollout is at step 3 — paused, so step 3 is not
        # promoted: observed after the condition says so, over a resync (an unchanged set
        # re-decides every third poll, 3 s here).
        wait_for(lambda: condition_key(progressing_of(env, "guestbook")) == paused(3),
                 timeout=10, what=lambda: "paused at step 3: %s" % progressing_of(
                     env, "guestbook"))
        hold_until = time.time() + 3.5
        while time.time() < hold_until:
            no_promotion()
            self.assertEqual(env.app_statuses("guestbook")[prod_app].get("status"), "Waiting")
            time.sleep(0.1)

        resumed = time.time()
        post(env, "/api/v1/applicationsets/guestbook/resume")
        env.wait_completed_at(env.head(), "guestbook", timeout=60)
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), COMPLETE)
        prod = env.applies(PROD)
        self.assertTrue(prod, "step 3 was never written after the resume")
        self.assertGreaterEqual(min(a["t"] for a in prod), resumed - 0.01)
        self.assertGreater(resumed, paused_again)
        self.assertIn("rollout paused by", env.log())
        self.assertIn("rollout resumed by", env.log())


class SkipDeadCluster(unittest.TestCase):
    def test_skip_lets_the_next_step_start_and_survives_a_restart(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        # qa's cluster refuses every connection from the start: its app holds step 2.
        env.fault(QA, down=True)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        qa_app = QA + "-guestbook"
        reason = "cluster sim-1 is being rebuilt"

        def held():
            self.assertEqual(env.applies(PROD), [], "step 3 written while step 2 was held")
            st = env.app_statuses("guestbook")
            return (rollout_of(env, "guestbook").get("step") == 2
                    and st.get(DEV + "-guestbook", {}).get("status") == "Healthy"
                    and condition_key(progressing_of(env, "guestbook")) == modified(2))
        wait_for(held, timeout=30, what=lambda: "step 2 held by the dead cluster: %s\n%s"
                 % (status_of(env, "guestbook"), env.log_tail()))
        held_at = time.time()
        while time.time() < held_at + 3.5:  # it stays held over a resync (3 s)
            self.assertTrue(held())
            time.sleep(0.1)

        # A skip needs the token.
        status, _ = env.http("POST", "/api/v1/applications/%s/skip" % qa_app,
                             body={"reason": reason})
        self.assertEqual(status, 401)
        skipped_at = time.time()
        post(env, "/api/v1/applications/%s/skip" % qa_app, body={"reason": reason})

        env.wait_completed("guestbook", timeout=60)
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), COMPLETE)
        entry = env.app_statuses("guestbook")[qa_app]
        self.assertEqual(entry.get("message"), "Application skipped: " + reason)
        self.assertEqual(rollout_of(env, "guestbook").get("skipped"), {qa_app: reason})
        prod = env.applies(PROD)
        self.assertTrue(prod, "step 3 never written after the skip")
        self.assertGreaterEqual(min(a["t"] for a in prod), skipped_at - 0.01)
        self.assertEqual(env.applies(QA), [])
        self.assertIn("app=%s skipped (%s) by" % (qa_app, reason), env.log())

        env.kill9()
        env.start()
        wait_for(lambda: progressing_of(env, "guestbook"), timeout=30,
                 what=lambda: "the set's status after the restart\n" + env.log_tail())
        self.assertEqual(condition_key(progressing_of(env, "guestbook")), COMPLETE)
        self.assertEqual(env.app_statuses("guestbook")[qa_app].get("message"),
                         "Application skipped: " + reason)
        self.assertEqual(rollout_of(env, "guestbook").get("skipped"), {qa_app: reason})

        # A new pinned revision clears the skip: the dead cluster holds step 2 again.
        committed = time.time()
        head = env.set_manifest(image=GUESTBOOK_NEXT)

        def held_again():
            st = env.app_statuses("guestbook")
            return (st.get(DEV + "-guestbook", {}).get("targetRevisions") == [head]
                    and st.get(DEV + "-guestbook", {}).get("status") == "Healthy"
                    and not rollout_of(env, "guestbook").get("skipped")
                    and st.get(qa_app, {}).get("message", "").find("skipped") < 0
                    and condition_key(progressing_of(env, "guestbook")) == modified(2))
        wait_for(held_again, timeout=30, what=lambda: "the skip cleared at %s: %s\n%s"
                 % (head, status_of(env, "guestbook"), env.log_tail()))
        self.assertEqual([a for a in env.applies(PROD) if a["t"] >= committed - 0.01], [])


if __name__ == "__main__":
    unittest.main()
