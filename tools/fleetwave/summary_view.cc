#include "tools/fleetwave/summary_view.h"

#include <algorithm>
#include <vector>

#include "engine/progress/workload.h"
#include "tools/fleetwave/table.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

constexpr const char* kCurrent = "1;36";  // the current step's row: bold cyan, as --all

std::string Str(const Json& j, std::initializer_list<std::string_view> path) {
  const Json* v = engine::FieldAt(j, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

long long Int(const Json& j, std::initializer_list<std::string_view> path) {
  const Json* v = engine::FieldAt(j, path);
  return v != nullptr && v->is_number_integer() ? v->get<long long>() : 0;
}

std::string Or(const std::string& s, const char* fallback) { return s.empty() ? fallback : s; }

long long Count(const Json& counts, const char* status) { return Int(counts, {status}); }

// "3 healthy, 1 degraded, 2 waiting": the non-zero counts in the summary's status order.
std::string Breakdown(const Json& counts, const Json& statuses) {
  std::string out;
  if (!statuses.is_array()) return out;
  for (const Json& s : statuses) {
    if (!s.is_string()) continue;
    const std::string word = s.get<std::string>();
    const long long n = Count(counts, word.c_str());
    if (n == 0) continue;
    std::string lower = word;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + lower;
  }
  return out.empty() ? "-" : out;
}

std::string MaxUpdateText(const Json& step) {
  const Json* max = engine::FieldAt(step, {"maxUpdate"});
  if (max == nullptr || max->is_null()) return "100%";
  const std::string text = max->is_string()           ? max->get<std::string>()
                           : max->is_number_integer() ? std::to_string(max->get<long long>())
                                                      : max->dump();
  return text == "0" ? "0 (manual)" : text;
}

// A step's state from the set's rollout word and where the step stands.
std::string StepState(long long step, long long current, long long done, long long total,
                      const std::string& rollout) {
  if (step == current && current > 0) {
    if (rollout == "Paused" || rollout == "Deadline exceeded") return rollout;
    return "Progressing";
  }
  if (done == total || (current == 0 && rollout == "Complete")) return "Complete";
  return step < current ? "Progressing" : "Waiting";
}

Row AppRow(const Json& row) {
  const std::string health = Or(Str(row, {"health"}), "Unknown");
  const std::string sync = Or(Str(row, {"sync"}), "Unknown");
  const std::string status = Str(row, {"status"});
  const long long step = Int(row, {"step"});
  return Row{Cell{Str(row, {"name"})},
             Cell{Or(Str(row, {"cluster"}), "-")},
             Cell{step > 0 ? std::to_string(step) : "-"},
             Cell{status, StateStyle(status == "Failed" || status == "Degraded" || status == "Late"
                                         ? "Error"
                                         : status)},
             Cell{health, HealthStyle(health)},
             Cell{sync, SyncStyle(sync)},
             Cell{Str(row, {"message"})}};
}

std::string AppLine(const Json& row) {
  const long long step = Int(row, {"step"});
  return "app " + Str(row, {"name"}) + " (step " + (step > 0 ? std::to_string(step) : "-") +
         "): " + Or(Str(row, {"health"}), "Unknown") + " " + Or(Str(row, {"sync"}), "Unknown") +
         " on " + Or(Str(row, {"cluster"}), "-") + ", " + Str(row, {"status"});
}

}  // namespace

View AppSetSummaryView(const FleetState& state, const std::string& name,
                       const ViewOptions& options) {
  View view;
  const auto& summaries = state.Of("summaries");
  auto it = summaries.find(name);
  if (it == summaries.end()) {
    return SetNotFoundView(name);
  }
  const Json& s = it->second;
  const Json empty = Json::object();
  const Json* statuses = engine::FieldAt(s, {"statuses"});
  const Json* step_list = engine::FieldAt(s, {"steps"});
  const std::string rollout = Or(Str(s, {"rollout", "status"}), "-");
  const std::string message = Str(s, {"rollout", "message"});
  const long long current = Int(s, {"currentStep"});
  const long long total = Int(s, {"total"});
  const Json* set_counts = engine::FieldAt(s, {"counts"});
  const long long done =
      set_counts != nullptr ? Count(*set_counts, "Healthy") + Count(*set_counts, "Skipped") : 0;
  long long declared = 0;
  if (step_list != nullptr && step_list->is_array()) {
    for (const Json& step : *step_list) declared += Int(step, {"step"}) > 0 ? 1 : 0;
  }
  const std::string step_text = declared == 0 ? "-"
                                              : (current > 0             ? std::to_string(current)
                                                 : rollout == "Complete" ? std::to_string(declared)
                                                                         : std::string("-")) +
                                                    "/" + std::to_string(declared);
  const std::string apps_done = std::to_string(done) + "/" + std::to_string(total);

  view.text = RenderTable({"NAME", "STRATEGY", "STEP", "APPS", "STATUS"},
                          {Row{Cell{name}, Cell{Or(Str(s, {"strategy"}), "-")}, Cell{step_text},
                               Cell{apps_done}, Cell{rollout, StateStyle(rollout)}}},
                          options.color);
  view.lines.emplace_back("appset/" + name, "appset " + name + ": step " + step_text + " " +
                                                rollout + ", " + apps_done + " apps complete");

  // One row per step, counts by status beside the progress bar.
  std::vector<Row> steps;
  if (step_list != nullptr && step_list->is_array()) {
    for (const Json& step : *step_list) {
      const long long number = Int(step, {"step"});
      const Json* counts_ptr = engine::FieldAt(step, {"counts"});
      const Json& counts = counts_ptr != nullptr ? *counts_ptr : empty;
      const long long step_total = Int(step, {"total"});
      const long long step_done = Count(counts, "Healthy") + Count(counts, "Skipped");
      const std::string selector = number > 0 ? SelectorText(step) : "(no step selects)";
      const std::string max_update = number > 0 ? MaxUpdateText(step) : "-";
      const std::string state_word =
          number > 0 ? StepState(number, current, step_done, step_total, rollout) : "-";
      const bool is_current = number == current && current > 0;
      const char* style = is_current ? kCurrent : nullptr;
      const std::string count = std::to_string(step_done) + "/" + std::to_string(step_total);
      const std::string bar =
          ProgressBar(static_cast<int>(step_done), static_cast<int>(step_total), 10);
      steps.push_back(Row{
          Cell{number > 0 ? std::to_string(number) : "-", style}, Cell{selector, style},
          Cell{count, style}, Cell{bar, is_current ? kCurrent : StateStyle(state_word)},
          Cell{max_update, style}, Cell{state_word, is_current ? kCurrent : StateStyle(state_word)},
          Cell{Breakdown(counts, statuses ? *statuses : empty), style}});
      if (number > 0) {
        view.lines.emplace_back("step/" + std::to_string(number),
                                "step " + std::to_string(number) + " (" + selector + "): " + count +
                                    " " + bar + " maxUpdate " + max_update + " " + state_word);
      }
    }
  }
  if (!steps.empty() && declared > 0) {
    view.text += "\n" + RenderTable({"STEP", "SELECTOR", "APPS", "PROGRESS", "MAXUPDATE", "STATE",
                                     "BREAKDOWN"},
                                    steps, options.color);
  }

  if (const Json* analysis = engine::FieldAt(s, {"analysis"})) {
    AppendAnalysis(*analysis, view, options.color);
  }

  // The set's rows: the current step's apps when few, and every row for a watch's pipe lines.
  std::vector<const Json*> rows;
  for (const auto& [_, row] : state.Of("rows")) {
    if (Str(row, {"appset"}) == name) rows.push_back(&row);
  }
  for (const Json* row : rows) view.lines.emplace_back("app/" + Str(*row, {"name"}), AppLine(*row));

  const std::vector<std::string> headers = {"APPLICATION", "CLUSTER", "STEP",   "STATUS",
                                            "HEALTH",      "SYNC",    "MESSAGE"};
  const Json* attention = engine::FieldAt(s, {"attention"});
  const long long attention_total = Int(s, {"attentionTotal"});
  if (attention != nullptr && attention->is_array() && !attention->empty()) {
    std::vector<Row> table;
    for (const Json& row : *attention) {
      if (table.size() >= kAttentionShown) break;
      table.push_back(AppRow(row));
    }
    view.text += "\nNeeds attention (" + std::to_string(attention_total) + "):\n";
    view.text += RenderTable(headers, table, options.color);
    if (attention_total > static_cast<long long>(table.size())) {
      view.text +=
          "... and " + std::to_string(attention_total - static_cast<long long>(table.size())) +
          " more: fleetwave get appset " + name + " --status failed,degraded,late,skipped\n";
    }
  }
  if (current > 0) {
    std::vector<Row> table;
    size_t in_step = 0;
    for (const Json* row : rows) {
      if (Int(*row, {"step"}) != current) continue;
      ++in_step;
      if (table.size() < kStepAppsShown) table.push_back(AppRow(*row));
    }
    if (in_step <= kStepAppsShown) {
      view.text += "\nStep " + std::to_string(current) + " applications:\n";
      view.text += RenderTable(headers, table, options.color);
    } else {
      view.text += "\nStep " + std::to_string(current) + ": " + std::to_string(in_step) +
                   " applications (fleetwave get appset " + name + " --step " +
                   std::to_string(current) + " lists them)\n";
    }
  }
  if (!message.empty()) view.text += "\n" + message + "\n";
  return view;
}

View RowsView(const FleetState& state, const ViewOptions& options) {
  std::vector<std::string> headers = {"NAME",   "APPSET", "CLUSTER", "STEP",
                                      "STATUS", "HEALTH", "SYNC"};
  if (options.wide) headers.push_back("MESSAGE");
  View view;
  std::vector<Row> rows;
  std::vector<std::string> keys;
  for (const auto& [key, row] : state.Of("rows")) {
    Row r = AppRow(row);
    Row out = {r[0], Cell{Or(Str(row, {"appset"}), "-")}, r[1], r[2], r[3], r[4], r[5]};
    if (options.wide) out.push_back(r[6]);
    rows.push_back(std::move(out));
    keys.push_back(key);
  }
  view.text = RenderTable(headers, rows, options.color);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string line = RenderRow(headers, rows, i, false);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    view.lines.emplace_back(keys[i], line);
  }
  return view;
}

}  // namespace fleetwave::cli
