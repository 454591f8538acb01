#include "engine/appset/appset_summary.h"

#include <algorithm>
#include <map>

#include "engine/progress/workload.h"
#include "engine/rollingsync/rollback_summary.h"

namespace fleetwave::engine {
namespace {

const Json& DeclaredSteps(const Json& appset) {
  static const Json kNone = Json::array();
  const Json* steps = FieldAt(appset, {"spec", "strategy", "rollingSync", "steps"});
  return steps != nullptr && steps->is_array() ? *steps : kNone;
}

int CurrentStep(const Json& appset) {
  const Json* j = &appset;
  for (const char* key : {"status", "rollout", "step"}) {
    if (!j->is_object()) return 0;
    auto it = j->find(key);
    if (it == j->end()) return 0;
    j = &*it;
  }
  return j->is_number_integer() ? static_cast<int>(j->get<long long>()) : 0;
}

std::string NameOf(const Json& appset) {
  auto m = appset.is_object() ? appset.find("metadata") : appset.end();
  if (m == appset.end() || !m->is_object()) return "";
  auto n = m->find("name");
  return n != m->end() && n->is_string() ? n->get<std::string>() : "";
}

Json CountsJson(const StatusCounts& counts) {
  Json out = Json::object();
  for (size_t i = 0; i < kDisplayStatusCount; ++i) {
    out[DisplayStatusName(static_cast<AppDisplayStatus>(i))] = counts[i];
  }
  return out;
}

}  // namespace

std::string RolloutStatusWord(const Json& appset, std::string* message) {
  const Json* conditions = nullptr;
  if (appset.is_object()) {
    auto status = appset.find("status");
    if (status != appset.end() && status->is_object()) {
      auto c = status->find("conditions");
      if (c != status->end() && c->is_array()) conditions = &*c;
    }
  }
  auto str = [](const Json& o, const char* key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string word, held;
  if (conditions == nullptr) return "-";
  for (const Json& c : *conditions) {
    if (!c.is_object()) continue;
    const std::string type = str(c, "type");
    const bool is_true = str(c, "status") == "True";
    if ((type == "InvalidRolloutConfig" || type == "ErrorOccurred") && is_true) {
      *message = str(c, "message");
      return type == "ErrorOccurred" ? "Error" : "Invalid";
    }
    if (type == "SyncWindowHold" && is_true) held = str(c, "message");  // issue 29
    if (type != "RolloutProgressing") continue;
    const std::string reason = str(c, "reason");
    *message = str(c, "message");
    if (reason == "ApplicationSetModified") word = "Progressing";
    if (reason == "ApplicationSetRolloutComplete") word = "Complete";
    if (reason == "ProgressDeadlineExceeded") word = "Deadline exceeded";
    if (reason == "ApplicationSetPaused") word = "Paused";
    if (reason == "RolloutFailed") word = "Failed";
    if (reason == "RolloutAborted") word = "Aborted";
    if (reason == "RolloutRolledBack") word = "Rolled back";  // an operator's rollback
  }
  // A rollout that would progress but for a sync window says so, naming the window.
  if (word == "Progressing" && !held.empty()) {
    *message = held;
    return "Held by sync window";
  }
  return word.empty() ? "-" : word;
}

Json AnalysisOf(const Json& appset) {
  const Json* analysis = FieldAt(appset, {"status", "rollout", "analysis"});
  if (analysis == nullptr || !analysis->is_object()) return Json();
  const Json* step = FieldAt(*analysis, {"step"});
  const Json* measurements = FieldAt(*analysis, {"measurements"});
  if (step == nullptr || !step->is_number_integer() || measurements == nullptr ||
      !measurements->is_array() || measurements->empty()) {
    return Json();
  }
  Json out = {{"step", *step}, {"measurements", *measurements}};
  const Json* steps = FieldAt(appset, {"spec", "strategy", "rollingSync", "steps"});
  const long long n = step->get<long long>();
  if (steps != nullptr && steps->is_array() && n >= 1 && static_cast<size_t>(n) <= steps->size()) {
    if (const Json* spec = FieldAt((*steps)[static_cast<size_t>(n - 1)], {"analysis"})) {
      for (const char* key : {"query", "successCondition", "count"}) {
        if (const Json* v = FieldAt(*spec, {key})) out[key] = *v;
      }
    }
  }
  return out;
}

AppSetSummary Summarize(const Json& appset, const std::vector<AppRow>& rows,
                        size_t attention_limit) {
  AppSetSummary s;
  s.name = NameOf(appset);
  s.analysis = AnalysisOf(appset);
  s.rollback = RollbackSummaryOf(appset);
  s.rollout_status = RolloutStatusWord(appset, &s.rollout_message);
  s.current_step = CurrentStep(appset);
  const Json& declared_steps = DeclaredSteps(appset);
  const size_t declared = declared_steps.size();
  const Json* type = FieldAt(appset, {"spec", "strategy", "type"});
  s.strategy = type != nullptr && type->is_string() && !type->get<std::string>().empty()
                   ? type->get<std::string>()
                   : "AllAtOnce";
  // Per step, its rows ordered by cluster then name for the strip.
  std::map<int, std::vector<const AppRow*>> by_step;
  for (size_t i = 1; i <= declared; ++i) by_step[static_cast<int>(i)];
  std::vector<const AppRow*> attention;
  for (const AppRow& row : rows) {
    ++s.total;
    ++s.counts[static_cast<size_t>(row.status)];
    const int step = row.step > 0 && static_cast<size_t>(row.step) <= declared ? row.step : 0;
    by_step[step].push_back(&row);
    if (NeedsAttention(row.status)) attention.push_back(&row);
  }
  for (auto& [step, members] : by_step) {
    std::sort(members.begin(), members.end(), [](const AppRow* a, const AppRow* b) {
      return a->cluster != b->cluster ? a->cluster < b->cluster : a->name < b->name;
    });
    StepSummary summary;
    summary.step = step;
    summary.total = members.size();
    summary.strip.reserve(members.size());
    for (const AppRow* row : members) {
      ++summary.counts[static_cast<size_t>(row->status)];
      summary.strip += static_cast<char>('0' + static_cast<int>(row->status));
    }
    if (step == 0 && members.empty()) continue;
    if (step > 0) {
      const Json& spec = declared_steps[static_cast<size_t>(step - 1)];
      if (const Json* m = FieldAt(spec, {"matchExpressions"}); m != nullptr && m->is_array()) {
        summary.match_expressions = *m;
      }
      if (const Json* max = FieldAt(spec, {"maxUpdate"}); max != nullptr) summary.max_update = *max;
    }
    s.steps.push_back(std::move(summary));
  }
  // std::map orders step 0 first; it belongs after the declared steps.
  if (!s.steps.empty() && s.steps.front().step == 0) {
    std::rotate(s.steps.begin(), s.steps.begin() + 1, s.steps.end());
  }
  std::stable_sort(attention.begin(), attention.end(), [](const AppRow* a, const AppRow* b) {
    return a->status < b->status;  // rows arrive sorted by name: ties stay in name order
  });
  s.attention_total = attention.size();
  for (size_t i = 0; i < attention.size() && i < attention_limit; ++i) {
    s.attention.push_back(*attention[i]);
  }
  return s;
}

Json AppRowJson(const AppRow& row) {
  Json j = Json::object();
  j["name"] = row.name;
  j["appset"] = row.appset;
  j["cluster"] = row.cluster;
  j["step"] = row.step;
  j["status"] = DisplayStatusName(row.status);
  j["health"] = row.health;
  j["sync"] = row.sync;
  if (!row.rollout.empty()) j["rollout"] = row.rollout;
  if (!row.operation.empty()) j["operation"] = row.operation;
  if (!row.message.empty()) j["message"] = row.message;
  if (!row.labels.empty()) j["labels"] = row.labels;
  return j;
}

AppRow AppRowFromJson(const Json& json) {
  AppRow row;
  if (!json.is_object()) return row;
  auto str = [&json](const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  row.name = str("name");
  row.appset = str("appset");
  row.cluster = str("cluster");
  if (auto step = json.find("step"); step != json.end() && step->is_number_integer()) {
    row.step = static_cast<int>(step->get<long long>());
  }
  row.status = ParseDisplayStatus(str("status")).value_or(AppDisplayStatus::kWaiting);
  row.health = str("health");
  row.sync = str("sync");
  row.rollout = str("rollout");
  row.operation = str("operation");
  row.message = str("message");
  if (auto labels = json.find("labels"); labels != json.end() && labels->is_object()) {
    for (const auto& [k, v] : labels->items()) {
      if (v.is_string()) row.labels[k] = v.get<std::string>();
    }
  }
  return row;
}

Json SummaryJson(const AppSetSummary& s) {
  Json j = Json::object();
  j["apiVersion"] = "fleetwave.io/v1";
  j["kind"] = "ApplicationSetSummary";
  j["metadata"] = Json{{"name", s.name}};
  Json statuses = Json::array();
  for (size_t i = 0; i < kDisplayStatusCount; ++i) {
    statuses.push_back(DisplayStatusName(static_cast<AppDisplayStatus>(i)));
  }
  j["statuses"] = std::move(statuses);
  j["strategy"] = s.strategy;
  j["rollout"] = Json{{"status", s.rollout_status}, {"message", s.rollout_message}};
  j["currentStep"] = s.current_step;
  j["total"] = s.total;
  j["counts"] = CountsJson(s.counts);
  Json steps = Json::array();
  for (const StepSummary& step : s.steps) {
    Json j_step = Json::object();
    j_step["step"] = step.step;
    if (step.step > 0) j_step["matchExpressions"] = step.match_expressions;
    if (!step.max_update.is_null()) j_step["maxUpdate"] = step.max_update;
    j_step["total"] = step.total;
    j_step["counts"] = CountsJson(step.counts);
    j_step["strip"] = step.strip;
    steps.push_back(std::move(j_step));
  }
  j["steps"] = std::move(steps);
  Json attention = Json::array();
  for (const AppRow& row : s.attention) attention.push_back(AppRowJson(row));
  j["attention"] = std::move(attention);
  j["attentionTotal"] = s.attention_total;
  if (!s.analysis.is_null()) j["analysis"] = s.analysis;
  if (!s.rollback.is_null()) j["rollback"] = s.rollback;
  return j;
}

}  // namespace fleetwave::engine
