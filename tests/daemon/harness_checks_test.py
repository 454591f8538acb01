"""The harness's judgements (daemon_harness.py) on made-up audit records and events, so each
check is known to fail when its invariant is broken, not only to pass on a good rollout."""
import unittest

from daemon_harness import check_max_update, repeated_applies


def write(cluster, t, generation=1, content="h1"):
    return {"cluster": cluster, "resource": "deployments", "namespace": "guestbook",
            "name": "guestbook-ui", "generation": generation, "t": t, "time": "t=%s" % t,
            "annotations": {"fleetwave.io/applied-hash": content}}


def available(cluster, t, generation=1):
    return {"cluster": cluster, "namespace": "guestbook", "name": "guestbook-ui",
            "generation": generation, "t": t}


STEPS = [["sim-0"], ["sim-1", "sim-2", "sim-3"]]
LIMITS = [None, 1]


class MaxUpdateCheck(unittest.TestCase):
    def test_one_at_a_time_holds(self):
        applies = [write("sim-1", 10), write("sim-2", 12), write("sim-3", 14)]
        events = [available("sim-1", 11), available("sim-2", 13), available("sim-3", 15)]
        self.assertEqual(check_max_update(applies, events, STEPS, LIMITS), [])

    def test_a_promotion_at_the_instant_of_an_availability_holds(self):
        applies = [write("sim-1", 10), write("sim-2", 11), write("sim-3", 12)]
        events = [available("sim-1", 11), available("sim-2", 12), available("sim-3", 13)]
        self.assertEqual(check_max_update(applies, events, STEPS, LIMITS), [])

    def test_two_in_flight_in_a_step_of_max_update_one_is_a_violation(self):
        # sim-2 promoted while sim-1 was not yet available (as a takeover that lost the
        # in-flight app would do).
        applies = [write("sim-1", 10), write("sim-2", 10.5), write("sim-3", 14)]
        events = [available("sim-1", 11), available("sim-2", 13), available("sim-3", 15)]
        violations = check_max_update(applies, events, STEPS, LIMITS)
        self.assertEqual(len(violations), 1, violations)
        self.assertIn("2 apps in flight at once, maxUpdate 1", violations[0])

    def test_an_availability_at_an_older_generation_does_not_end_the_flight(self):
        applies = [write("sim-1", 10, generation=2), write("sim-2", 12)]
        events = [available("sim-1", 11, generation=1), available("sim-1", 13, generation=2),
                  available("sim-2", 14)]
        self.assertEqual(len(check_max_update(applies, events, STEPS, LIMITS)), 1)

    def test_an_app_never_available_is_a_violation(self):
        applies = [write("sim-1", 10)]
        self.assertIn("never available",
                      " ".join(check_max_update(applies, [], STEPS, LIMITS)))

    def test_writes_before_since_are_another_rollout(self):
        applies = [write("sim-1", 1), write("sim-2", 1.5), write("sim-1", 10, generation=2)]
        events = [available("sim-1", 2), available("sim-2", 3), available("sim-1", 11, 2)]
        self.assertEqual(len(check_max_update(applies, events, STEPS, LIMITS)), 1)
        self.assertEqual(check_max_update(applies, events, STEPS, LIMITS, since=5), [])


class RepeatedApplies(unittest.TestCase):
    def test_the_same_content_twice_is_a_duplicate(self):
        self.assertEqual(len(repeated_applies([write("sim-1", 1), write("sim-1", 2)])), 1)

    def test_new_content_is_not(self):
        self.assertEqual(repeated_applies([write("sim-1", 1), write("sim-1", 2, content="h2")]),
                         [])


if __name__ == "__main__":
    unittest.main()
