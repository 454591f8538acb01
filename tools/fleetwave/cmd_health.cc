// `fleetwave health -f OBJECT`: the health of any Kubernetes object, as Argo CD would judge it
// plus fleetwave's CloneSet and progress-deadline rules. Stateless: a workload's deadline is
// read from its own Progressing condition.
#include "engine/health/health.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/progress_object.h"

namespace fleetwave::cli {

int RunHealth(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"-f", "--filename"}, {}, &error);
  if (!args) {
    err << "fleetwave health: " << error << "\n";
    return 2;
  }
  auto file = args->Get("-f");
  if (!file) file = args->Get("--filename");
  if (!file || !args->positional.empty()) {
    err << "usage: fleetwave health -f OBJECT\n";
    return 2;
  }
  const std::optional<engine::Json> loaded = LoadObject(*file, err);
  if (!loaded) return 1;
  const engine::Json& object = *loaded;
  if (engine::StringAt(object, {"kind"}).empty() ||
      engine::StringAt(object, {"apiVersion"}).empty()) {
    err << (*file == "-" ? "<stdin>" : *file)
        << ": not a Kubernetes object: apiVersion and kind are required\n";
    return 1;
  }
  const engine::HealthStatus health = engine::AssessHealth(object);
  out << engine::HealthToJson(health).dump(2) << "\n";
  return 0;
}

}  // namespace fleetwave::cli
