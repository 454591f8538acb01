// The controller-side transition log behind GET /kubesim/events: one record per rollout
// transition (rolloutStarted, progressing, available, progressDeadlineExceeded,
// partitionReached, paused, deleted) with the workload's generation, in a bounded ring so a
// long-running simulator cannot grow without limit. RolloutTracker turns the per-tick phase a
// controller observes into those records, emitting only changes. Not thread-safe: io thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "tools/kubesim/clock.h"

namespace fleetwave::kubesim {

struct RolloutEvent {
  std::uint64_t seq = 0;
  TimePoint time{};
  std::string cluster;
  std::string kind;
  std::string ns;
  std::string name;
  long long generation = 0;
  std::string event;  // rolloutStarted | available | progressing | ...
};

class EventLog {
 public:
  explicit EventLog(std::size_t capacity = 100000) : capacity_(capacity) {}
  void Record(RolloutEvent e);
  // JSON lines for `cluster` ("" = all) after `since` (a sequence number, or an RFC 3339 time;
  // "" = everything retained).
  std::string Lines(const std::string& cluster, const std::string& since) const;
  const std::deque<RolloutEvent>& events() const { return events_; }

 private:
  std::size_t capacity_;
  std::uint64_t next_seq_ = 1;
  std::deque<RolloutEvent> events_;
};

// A workload's rollout phase as its controller sees it this tick.
enum class RolloutPhase { kProgressing, kAvailable, kDeadlineExceeded, kPartitionReached, kPaused };

class RolloutTracker {
 public:
  RolloutTracker(EventLog* log, std::string cluster) : log_(log), cluster_(std::move(cluster)) {}
  // `revision` identifies what is being rolled out; a new one (or a first sighting) records
  // rolloutStarted before the phase.
  void Observe(const std::string& kind, const std::string& ns, const std::string& name,
               long long generation, const std::string& revision, RolloutPhase phase,
               TimePoint now);
  // Marks the start of a sweep; objects not observed (or observed deleting) until Sweep are
  // reported deleted.
  void BeginSweep() { ++sweep_; }
  void Deleting(const std::string& kind, const std::string& ns, const std::string& name,
                long long generation, TimePoint now);
  void Sweep(TimePoint now);

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  struct State {
    std::string revision;
    std::optional<RolloutPhase> phase;
    long long generation = 0;
    std::uint64_t seen = 0;
  };
  void Emit(const Key& k, long long generation, const char* event, TimePoint now);

  EventLog* log_;
  std::string cluster_;
  std::uint64_t sweep_ = 0;
  std::map<Key, State> states_;
};

const char* PhaseEventName(RolloutPhase p);
// "2026-03-01T12:00:00.123Z": RFC 3339 with milliseconds, for the admin logs.
std::string FormatMilliTime(TimePoint t);
// Parses the `since` of the admin logs: RFC 3339 (fraction optional) into a time point.
std::optional<TimePoint> ParseRfc3339(const std::string& text);

// The `since` query of /kubesim/events and /kubesim/audit: a sequence number, or an RFC 3339
// time; a record is shown when it came strictly after it. Empty admits everything.
struct SinceFilter {
  std::optional<std::uint64_t> seq;
  std::optional<TimePoint> time;

  static SinceFilter Parse(const std::string& since);
  bool Admits(std::uint64_t record_seq, TimePoint record_time) const {
    return !(seq && record_seq <= *seq) && !(time && record_time <= *time);
  }
};

}  // namespace fleetwave::kubesim
