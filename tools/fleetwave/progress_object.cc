#include "tools/fleetwave/progress_object.h"

#include "engine/issue.h"
#include "tools/fleetwave/input.h"

namespace fleetwave::cli {

bool LoadObject(const std::string& path, engine::Json& object, std::ostream& err) {
  std::string text;
  std::string error;
  if (!ReadInput(path, text, error)) {
    err << error << "\n";
    return false;
  }
  const std::string name = path == "-" ? "<stdin>" : path;
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(text, name);
  if (!docs.issues.empty()) {
    for (const auto& issue : docs.issues) err << engine::FormatIssue(issue) << "\n";
    return false;
  }
  if (docs.documents.size() != 1) {
    err << name << ": expected one Kubernetes object, found " << docs.documents.size()
        << " documents\n";
    return false;
  }
  object = engine::YamlToJson(docs.documents.front());
  if (!object.is_object()) {
    err << name << ": expected a Kubernetes object (a mapping with apiVersion and kind)\n";
    return false;
  }
  return true;
}

nlohmann::ordered_json ProgressResultToJson(const engine::ProgressResult& result) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (result.condition) {
    const engine::ProgressCondition& c = *result.condition;
    out["condition"] = {{"type", c.type},
                        {"status", c.status},
                        {"reason", c.reason},
                        {"message", c.message},
                        {"lastUpdateTime", engine::FormatRfc3339(c.last_update_time)},
                        {"lastTransitionTime", engine::FormatRfc3339(c.last_transition_time)}};
  } else {
    out["condition"] = nullptr;
  }
  if (result.requeue_after) {
    out["requeueAfterSeconds"] = result.RequeueAfterSeconds();
  } else {
    out["requeueAfterSeconds"] = -1;
  }
  return out;
}

}  // namespace fleetwave::cli
