#include "tools/kubesim/controllers/event_log.h"

#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

const char* PhaseEventName(RolloutPhase p) {
  switch (p) {
    case RolloutPhase::kProgressing:
      return "progressing";
    case RolloutPhase::kAvailable:
      return "available";
    case RolloutPhase::kDeadlineExceeded:
      return "progressDeadlineExceeded";
    case RolloutPhase::kPartitionReached:
      return "partitionReached";
    case RolloutPhase::kPaused:
      return "paused";
  }
  return "progressing";
}

std::string FormatMilliTime(TimePoint t) {
  auto us = t.time_since_epoch().count();
  std::time_t secs = us / 1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03lldZ", static_cast<long long>(us % 1000000) / 1000);
  return buf;
}

std::optional<TimePoint> ParseRfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  long long us = 0;
  std::size_t i = static_cast<std::size_t>(consumed);
  if (i < text.size() && text[i] == '.') {
    long long scale = 100000;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      us += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  std::time_t secs = timegm(&tm);
  return TimePoint(std::chrono::seconds(secs) + Duration(us));
}

SinceFilter SinceFilter::Parse(const std::string& since) {
  SinceFilter f;
  if (since.empty()) return f;
  if (since.find('T') != std::string::npos) {
    f.time = ParseRfc3339(since);
  } else {
    f.seq = std::strtoull(since.c_str(), nullptr, 10);
  }
  return f;
}

void EventLog::Record(RolloutEvent e) {
  e.seq = next_seq_++;
  events_.push_back(std::move(e));
  while (events_.size() > capacity_) events_.pop_front();
}

std::string EventLog::Lines(const std::string& cluster, const std::string& since) const {
  const SinceFilter filter = SinceFilter::Parse(since);
  std::string out;
  for (const auto& e : events_) {
    if (!cluster.empty() && e.cluster != cluster) continue;
    if (!filter.Admits(e.seq, e.time)) continue;
    nlohmann::json j = {{"seq", e.seq},
                        {"time", FormatMilliTime(e.time)},
                        {"cluster", e.cluster},
                        {"kind", e.kind},
                        {"namespace", e.ns},
                        {"name", e.name},
                        {"generation", e.generation},
                        {"event", e.event}};
    out += j.dump();
    out += '\n';
  }
  return out;
}

void RolloutTracker::Emit(const Key& k, long long generation, const char* event, TimePoint now) {
  if (!log_) return;
  log_->Record(
      {0, now, cluster_, std::get<0>(k), std::get<1>(k), std::get<2>(k), generation, event});
}

void RolloutTracker::Observe(const std::string& kind, const std::string& ns,
                             const std::string& name, long long generation,
                             const std::string& revision, RolloutPhase phase, TimePoint now) {
  Key k{kind, ns, name};
  auto [it, fresh] = states_.try_emplace(k);
  State& s = it->second;
  s.seen = sweep_;
  s.generation = generation;
  if (fresh || s.revision != revision) {
    s.revision = revision;
    s.phase.reset();
    Emit(k, generation, "rolloutStarted", now);
  }
  if (s.phase != phase) {
    s.phase = phase;
    Emit(k, generation, PhaseEventName(phase), now);
  }
}

void RolloutTracker::Deleting(const std::string& kind, const std::string& ns,
                              const std::string& name, long long generation, TimePoint now) {
  Key k{kind, ns, name};
  auto it = states_.find(k);
  if (it == states_.end()) return;  // already reported (or never seen)
  Emit(k, generation, "deleted", now);
  states_.erase(it);
}

void RolloutTracker::Sweep(TimePoint now) {
  for (auto it = states_.begin(); it != states_.end();) {
    if (it->second.seen != sweep_) {
      Emit(it->first, it->second.generation, "deleted", now);
      it = states_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace fleetwave::kubesim
