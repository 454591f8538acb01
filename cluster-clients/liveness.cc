#include "cluster-clients/liveness.h"

namespace fleetwave::clients {
namespace {

// `at` moved up to the next multiple of `grid` since the clock's epoch (itself when on it).
SteadyTime OnGrid(SteadyTime at, Duration grid) {
  if (grid <= Duration::zero()) return at;
  const Duration since = at.time_since_epoch();
  const Duration rest = since % grid;
  if (rest == Duration::zero()) return at;
  return at + (rest > Duration::zero() ? grid - rest : -rest);
}

}  // namespace

bool ClusterFailure(const Result& result) {
  if (result.ok()) return false;
  if (result.outcome == Outcome::kTransient) return true;
  switch (result.problem) {
    case Problem::kTls:
    case Problem::kUnauthorized:
    case Problem::kTimeout:
    case Problem::kNoProgress:
    case Problem::kConnectionRefused:
    case Problem::kDns:
    case Problem::kConnection:
    case Problem::kThrottled:
    case Problem::kServerError:
    case Problem::kCredentials:
      return true;
    default:
      return false;
  }
}

Liveness::Liveness(LivenessPolicy policy, std::uint64_t seed)
    : policy_(policy), backoff_(policy.down_backoff, seed), next_probe_(SteadyTime::min()) {
  if (policy_.down_after < 1) policy_.down_after = 1;
}

bool Liveness::Record(const Result& result, SteadyTime now, Source source) {
  const State before = state_;
  if (!ClusterFailure(result)) {
    // A hung server's open watches may still stream: only an answered request ends a hang.
    if (source == Source::kWatchEvent && hung_) return false;
    state_ = State::kUp;
    failures_ = 0;
    if (source == Source::kRequest) {
      hung_ = false;
      backoff_.Reset();
      // A cluster that answers needs no probe for a while.
      if (!probe_in_flight_) {
        next_probe_.reset();
        if (policy_.probe_interval > Duration::zero()) {
          next_probe_ = OnGrid(now + policy_.probe_interval, policy_.probe_grid);
        }
      }
    }
    return before != state_;
  }
  ++failures_;
  if (result.problem == Problem::kNoProgress) {
    hung_ = true;
    state_ = State::kDown;
  } else if (failures_ >= policy_.down_after) {
    state_ = State::kDown;
  }
  // A failure with no probe planned (none while up, or one just answered): one to confirm it.
  if (!probe_in_flight_ && !next_probe_) next_probe_ = now + backoff_.Next();
  return before != state_;
}

bool Liveness::ProbeDue(SteadyTime now) const {
  return !probe_in_flight_ && next_probe_ && now >= *next_probe_;
}

std::optional<SteadyTime> Liveness::NextProbeAt() const {
  if (probe_in_flight_) return std::nullopt;
  return next_probe_;
}

void Liveness::ProbeSent() {
  probe_in_flight_ = true;
  next_probe_.reset();
}

bool Liveness::RecordProbe(const Result& result, SteadyTime now) {
  probe_in_flight_ = false;
  next_probe_.reset();
  // Nothing is planned now: an answer plans the next probe after probe_interval, a failure
  // after the backoff's next step.
  return Record(result, now, Source::kRequest);
}

const char* LivenessStateName(Liveness::State state) {
  switch (state) {
    case Liveness::State::kUnknown:
      return "unknown";
    case Liveness::State::kUp:
      return "up";
    case Liveness::State::kDown:
      return "down";
  }
  return "unknown";
}

}  // namespace fleetwave::clients
