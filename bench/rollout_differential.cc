// The differential check of issue 25 with many seeds (CI runs 150 in
// tests/engine/rollingsync/rollout_tracker_differential_test.cc): RolloutTracker must equal Plan
// after every event of every sequence. Prints the totals, or the first divergence with its seed
// and the events before it, and exits 1 on one.
// Usage: rollout_differential [--seeds=N] [--first=S] [--events=K]  (default 5000 seeds from
// 1000, 200 events each)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/engine/rollingsync/rollout_differential.h"

int main(int argc, char** argv) {
  long long seeds = 5000, first = 1000;
  int events = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--seeds=", 0) == 0) seeds = std::atoll(arg.c_str() + 8);
    if (arg.rfind("--first=", 0) == 0) first = std::atoll(arg.c_str() + 8);
    if (arg.rfind("--events=", 0) == 0) events = std::atoi(arg.c_str() + 9);
  }
  long long decisions = 0, promotions = 0, completions = 0, measurements = 0, analysis_failed = 0;
  for (long long seed = first; seed < first + seeds; ++seed) {
    const auto run = fleetwave::engine::differential::RunDifferential(seed, events);
    decisions += run.decisions;
    promotions += run.promotions;
    completions += run.completions;
    measurements += run.measurements;
    analysis_failed += run.analysis_failed;
    if (run.divergence) {
      std::printf("seed %lld diverged: %s\n", seed, run.divergence->c_str());
      return 1;
    }
  }
  std::printf(
      "seeds %lld..%lld, %d events each: %lld decisions, %lld promotions, %lld decisions with "
      "the rollout complete, %lld analysis measurements, %lld decisions halted by a failed "
      "analysis; no divergence\n",
      first, first + seeds - 1, events, decisions, promotions, completions, measurements,
      analysis_failed);
  return 0;
}
