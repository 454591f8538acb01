// Liveness of one cluster, as a pure state machine with time as a parameter: whether the
// cluster is up, and when to probe it (GET /version) next. The cluster actor feeds it every
// request's, list's and watch's outcome and its probes' results, and sends a probe when one is
// due; the decisions are here (liveness_test.cc pins them with virtual time).
//
// - Unknown until the first outcome; up on an answer (any response that is about the request,
//   404 and 422 too, proves the server is there); down after `down_after` consecutive
//   failures of the connection or the server (ClusterFailure).
// - A failure that made no progress (Problem::kNoProgress: the server took a request or watch
//   and went silent past its bound) marks the cluster down at once: the bound already was the
//   patience. Such a cluster comes back up only when a request is answered, never on a watch
//   event, since a hung server's old watches may go on streaming.
// - Probes: while up, one after `probe_interval` without an answered request (a busy cluster
//   needs none; zero = never while up), at the next multiple of `probe_grid`; while not up, one
//   after each failed probe with jittered exponential backoff (`down_backoff`), reset by an
//   answer. One probe at a time.
//
// Not thread-safe: one owner.
#pragma once

#include <cstdint>
#include <optional>

#include "cluster-clients/backoff.h"
#include "cluster-clients/clock.h"
#include "cluster-clients/result.h"

namespace fleetwave::clients {

struct LivenessPolicy {
  int down_after = 3;                     // consecutive failures of requests, lists or watches
  Duration probe_interval = seconds(10);  // while up; zero = no probes while up
  // A probe's bound: no byte of an answer within it is a hang (Problem::kNoProgress). GET
  // /version touches neither etcd nor webhooks, so a live API server answers in milliseconds.
  Duration probe_timeout = seconds(10);
  // A probe while up is due on the next multiple of this (of the steady clock) after
  // probe_interval, so that the probes of a fleet's clusters fall due together and share their
  // timer and I/O wake-ups instead of each waking the daemon (at N=500, 50 probes a second were
  // 50 wake-ups of the timer thread, a worker and the I/O thread each). Zero: no grid.
  Duration probe_grid = seconds(1);
  BackoffPolicy down_backoff{seconds(1), 2.0, 0.2, seconds(30), seconds(30)};
};

// Whether a result says the cluster cannot be used right now (connection, TLS, DNS, timeout,
// no progress, 5xx, 429 after retries, credentials refused), as opposed to an answer about the
// request itself.
bool ClusterFailure(const Result& result);

class Liveness {
 public:
  enum class State { kUnknown, kUp, kDown };
  // What an outcome came from: a request (list pages and probes included), or an event of a
  // watch that is already open.
  enum class Source { kRequest, kWatchEvent };

  explicit Liveness(LivenessPolicy policy = {}, std::uint64_t seed = 0);

  // Counts one outcome at `now`. Returns whether up/down changed.
  bool Record(const Result& result, SteadyTime now, Source source = Source::kRequest);

  // Probes. Due at once when created. ProbeSent marks one in flight (no other is due until
  // its result comes through RecordProbe, which counts it like Record and schedules the next).
  bool ProbeDue(SteadyTime now) const;
  // When the next probe is due; nullopt while one is in flight or none is planned.
  std::optional<SteadyTime> NextProbeAt() const;
  void ProbeSent();
  bool RecordProbe(const Result& result, SteadyTime now);

  State state() const { return state_; }
  bool up() const { return state_ == State::kUp; }
  bool down() const { return state_ == State::kDown; }
  // Down because something made no progress (not counted failures).
  bool hung() const { return hung_; }
  int failures_in_a_row() const { return failures_; }
  const LivenessPolicy& policy() const { return policy_; }

 private:
  LivenessPolicy policy_;
  Backoff backoff_;
  State state_ = State::kUnknown;
  bool hung_ = false;
  int failures_ = 0;
  bool probe_in_flight_ = false;
  std::optional<SteadyTime> next_probe_;  // nullopt = none planned
};

const char* LivenessStateName(Liveness::State state);

}  // namespace fleetwave::clients
