// `fleetwave progress -f WORKLOAD [--now T]`: the offline progress-deadline calculator. The
// previous condition is the one in the object's own status (see PreviousFromStatus); `now`
// defaults to the wall clock, read here and only here.
#include <chrono>

#include "engine/progress/progress_deadline.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/progress_object.h"

namespace fleetwave::cli {

int RunProgress(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"-f", "--filename", "--now"}, {}, &error);
  if (!args) {
    err << "fleetwave progress: " << error << "\n";
    return 2;
  }
  auto file = args->Get("-f");
  if (!file) file = args->Get("--filename");
  if (!file || !args->positional.empty()) {
    err << "usage: fleetwave progress -f WORKLOAD [--now RFC3339]\n";
    return 2;
  }
  engine::Time now =
      std::chrono::time_point_cast<engine::Duration>(std::chrono::system_clock::now());
  if (auto text = args->Get("--now")) {
    auto parsed = engine::ParseRfc3339(*text);
    if (!parsed) {
      err << "fleetwave progress: --now: not an RFC 3339 time: \"" << *text << "\"\n";
      return 2;
    }
    now = *parsed;
  }

  const std::optional<engine::Json> loaded = LoadObject(*file, err);
  if (!loaded) return 1;
  const engine::Json& object = *loaded;
  const std::string name = *file == "-" ? "<stdin>" : *file;
  engine::WorkloadRead read = engine::ReadWorkload(object);
  if (!read.workload) {
    err << name << ": " << read.error->ToString() << "\n";
    return 1;
  }
  const engine::ProgressResult result =
      engine::EvaluateProgress(*read.workload, engine::PreviousFromStatus(*read.workload), now);
  // Deadline problems are reported but do not fail the command: the deadline is treated as
  // absent, which is the answer printed.
  for (const auto& p : result.problems) {
    err << name << ": warning: " << p.path << ": " << p.message << "\n";
  }
  out << ProgressResultToJson(result).dump(2) << "\n";
  return 0;
}

}  // namespace fleetwave::cli
