// Loading the single Kubernetes object that `fleetwave progress` and `fleetwave health` take
// (-f FILE, "-" for standard input, YAML or JSON as `kubectl get -o yaml|json` prints it), and
// printing the progress result in its documented JSON shape (README, `fleetwave progress`).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "engine/progress/progress_deadline.h"
#include "engine/yaml_json.h"

namespace fleetwave::cli {

// Reads and decodes one object. On failure writes one line per problem to `err`, each naming
// the file (with line:col for syntax errors), and returns nullopt.
std::optional<engine::Json> LoadObject(const std::string& path, std::ostream& err);

// {"condition": {...} | null, "requeueAfterSeconds": N}, fields in the documented
// order (type, status, reason, message, lastUpdateTime, lastTransitionTime).
nlohmann::ordered_json ProgressResultToJson(const engine::ProgressResult& result);

}  // namespace fleetwave::cli
