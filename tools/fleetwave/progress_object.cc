#include "tools/fleetwave/progress_object.h"

#include "engine/issue.h"
#include "engine/progress/workload.h"
#include "tools/fleetwave/input.h"

namespace fleetwave::cli {

std::optional<engine::Json> LoadObject(const std::string& path, std::ostream& err) {
  const std::string name = InputName(path);
  engine::LoadedDocuments docs = ReadDocuments(path);
  if (!docs.issues.empty()) {
    for (const auto& issue : docs.issues) err << engine::FormatIssue(issue) << "\n";
    return std::nullopt;
  }
  if (docs.documents.size() != 1) {
    err << name << ": expected one Kubernetes object, found " << docs.documents.size()
        << " documents\n";
    return std::nullopt;
  }
  engine::Json object = engine::YamlToJson(docs.documents.front());
  if (!object.is_object()) {
    err << name << ": expected a Kubernetes object (a mapping with apiVersion and kind)\n";
    return std::nullopt;
  }
  return object;
}

nlohmann::ordered_json ProgressResultToJson(const engine::ProgressResult& result) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["condition"] =
      result.condition ? engine::ConditionToJson(*result.condition) : nlohmann::ordered_json();
  if (result.requeue_after) {
    out["requeueAfterSeconds"] = result.RequeueAfterSeconds();
  } else {
    out["requeueAfterSeconds"] = -1;
  }
  return out;
}

}  // namespace fleetwave::cli
