#include "engine/appset/plan_input.h"

#include <cctype>

#include "engine/yaml_json.h"
#include "engine/yaml_prescan.h"

namespace fleetwave::engine {
namespace {

bool LooksLikeJson(const std::string& text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{' || c == '[';
  }
  return false;
}

bool IsList(const YAML::Node& doc) {
  return doc.IsMap() && doc["items"] &&
         (!doc["kind"] || doc["kind"].Scalar() == "List" || doc["kind"].Scalar().ends_with("List"));
}

// The one ApplicationSet of the file: the document itself, or the single item of a List.
std::optional<YAML::Node> TheApplicationSet(const LoadedDocuments& docs, const std::string& file,
                                            Issues& issues) {
  std::vector<YAML::Node> found;
  for (const auto& doc : docs.documents) {
    if (IsList(doc)) {
      if (doc["items"].IsSequence()) {
        for (const auto& item : doc["items"]) found.push_back(item);
      }
    } else if (doc.IsSequence()) {
      for (const auto& item : doc) found.push_back(item);
    } else {
      found.push_back(doc);
    }
  }
  if (found.size() != 1) {
    issues.push_back(
        {file,
         {},
         "",
         "expected exactly one ApplicationSet, found " + std::to_string(found.size())});
    return std::nullopt;
  }
  return found.front();
}

bool NeedsClusters(const ApplicationSet& set) { return UsesClustersGenerator(set); }

void DecodeApps(const std::string& text, const std::string& file, PlanInputs& out) {
  DecodedApplications apps;
  bool done = false;
  // Too deep for the budget: the YAML loader reports where (every later step recurses).
  if (LooksLikeJson(text) && !PrescanJsonDepth(text, InputLimits{}.max_document_depth)) {
    // kubectl -o json: nlohmann parses it an order of magnitude faster than the YAML path.
    // On a syntax error fall through to the YAML loader, which reports line and column.
    Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_discarded()) {
      DecodeApplicationDocument(doc, file, apps);
      done = true;
    }
  }
  if (!done) {
    LoadedDocuments docs = LoadYamlDocuments(text, file);
    for (auto& i : docs.issues) out.issues.push_back(std::move(i));
    for (const auto& doc : docs.documents) DecodeApplicationDocument(YamlToJson(doc), file, apps);
  }
  for (auto& i : apps.issues) out.issues.push_back(std::move(i));
  out.live = std::move(apps.apps);
}

// kubectl -o json of one ApplicationSet: yaml-cpp is slow on a status with many thousand
// entries, so the status is taken from nlohmann's parse and only the rest goes through the
// positioned decoder. Returns nullopt (the caller takes the slow path, whose issues carry
// exact positions) unless that decodes cleanly.
std::optional<ApplicationSet> FastJsonAppSet(const std::string& text, const std::string& file) {
  if (!LooksLikeJson(text) || PrescanJsonDepth(text, InputLimits{}.max_document_depth))
    return std::nullopt;
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  // A `kind` that is not a string is the slow path's to report (value() would throw).
  const auto kind = doc.is_object() ? doc.find("kind") : doc.end();
  if (doc.is_discarded() || !doc.is_object() || kind == doc.end() || !kind->is_string() ||
      *kind != "ApplicationSet") {
    return std::nullopt;
  }
  Json status = Json::object();
  if (auto it = doc.find("status"); it != doc.end()) {
    if (!it->is_object()) return std::nullopt;
    status = std::move(*it);
    doc.erase(it);
  }
  DecodedApplicationSet decoded;
  try {
    decoded = DecodeApplicationSet(YAML::Load(doc.dump()), file);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  if (!decoded.issues.empty() || !decoded.appset) return std::nullopt;
  decoded.appset->status = std::move(status);
  return std::move(decoded.appset);
}

}  // namespace

PlanInputs DecodePlanInputs(const std::string& appset_text, const std::string& appset_file,
                            const std::string& apps_text, const std::string& apps_file) {
  PlanInputs out;
  std::optional<ApplicationSet> appset = FastJsonAppSet(appset_text, appset_file);
  LoadedDocuments docs;
  if (!appset) docs = LoadYamlDocuments(appset_text, appset_file);
  out.issues = std::move(docs.issues);
  if (!appset && out.issues.empty()) {
    if (auto node = TheApplicationSet(docs, appset_file, out.issues)) {
      DecodedApplicationSet decoded = DecodeApplicationSet(*node, appset_file);
      for (auto& i : decoded.issues) out.issues.push_back(std::move(i));
      appset = std::move(decoded.appset);
    }
  }
  DecodeApps(apps_text, apps_file, out);
  if (!appset || !out.issues.empty()) return out;

  if (appset->generators.empty() || NeedsClusters(*appset)) {
    out.desired = DesiredFromLive(out.live);
  } else {
    GenerateResult generated = GenerateApplications(*appset, nullptr);
    for (auto& i : generated.issues) out.issues.push_back(std::move(i));
    out.desired = std::move(generated.apps);
  }
  if (out.issues.empty()) out.appset = std::move(appset);
  return out;
}

PlanRun RunPlanOnText(const std::string& appset_text, const std::string& appset_file,
                      const std::string& apps_text, const std::string& apps_file, Time now) {
  PlanRun run;
  PlanInputs in = DecodePlanInputs(appset_text, appset_file, apps_text, apps_file);
  if (!in.appset) {
    run.issues = std::move(in.issues);
    if (run.issues.empty()) run.issues.push_back({appset_file, {}, "", "no ApplicationSet"});
    return run;
  }
  PlanResult result = Plan(*in.appset, in.desired, in.live, now);
  for (auto& i : result.issues) {
    if (i.file.empty()) i.file = appset_file;
    run.issues.push_back(i);
  }
  if (run.issues.empty()) run.result = std::move(result);
  return run;
}

}  // namespace fleetwave::engine
