"""Acceptance 6 of issue 13: every cluster answers 20 % of requests with 500 and 20 % with
429 + Retry-After during the rollout. It completes, the wave order holds, and no object receives
the same content twice beyond the retries of failed sync attempts.

kubesim injects these faults before a request reaches the simulated cluster, so the audit holds
only requests that were served; a failed request leaves no trace there. What the audit can show
is a duplicate: the same object written successfully twice with the same fleetwave.io/applied-hash.
A sync attempt re-applies only objects whose live copy lacks the desired hash, so a duplicate
can only come from an attempt that failed part-way and was retried before the daemon saw its
earlier writes; the daemon logs each such attempt (`attempt failed`), which bounds them."""
import collections
import re
import unittest

from daemon_harness import DaemonEnv, appset_yaml, check_wave_order, content_of, object_key

STEPS = [["sim-0"], ["sim-1"], ["sim-2"]]



class FaultyClusters(unittest.TestCase):
    def test_rollout_completes_in_order_without_duplicate_writes(self):
        env = DaemonEnv(clusters=3)
        self.addCleanup(env.close)
        for c in env.clusters:
            env.fault(c, errorRate=0.2, errorCode=500, throttleRate=0.2, retryAfterSeconds=1)
        env.write_appset("guestbook.yaml", appset_yaml(
            "guestbook", env.elements(["env-dev", "env-qa", "env-prod"]),
            steps=[(["env-dev"], None), (["env-qa"], None), (["env-prod"], None)],
            repo_url=env.repo_url))
        env.start()
        env.wait_completed_at(env.head(), "guestbook", timeout=240)

        applies = env.applies()
        self.assertEqual(sorted({a["cluster"] for a in applies}), env.clusters)
        violations = check_wave_order(applies, env.available_events(), STEPS)
        self.assertEqual(violations, [], "\n".join(violations))

        writes = collections.Counter((object_key(a), content_of(a)) for a in applies)
        log = env.log()
        for (key, content), n in sorted(writes.items()):
            app = key[0] + "-guestbook"
            failed = len(re.findall(r"app=%s sync \S+ attempt failed" % re.escape(app), log))
            self.assertLessEqual(n - 1, failed,
                                 "%s written %d times with content %s; %d failed attempts of %s"
                                 % (key, n, content, failed, app))


if __name__ == "__main__":
    unittest.main()
