#include "tools/fleetwave/rollout_view.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>

#include "engine/appset/appset_summary.h"
#include "engine/rollingsync/rollback_summary.h"
#include "tools/fleetwave/table.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

// SGR styles (table.h Cell::style).
constexpr const char* kGreen = "32";
constexpr const char* kYellow = "33";
constexpr const char* kRed = "31";
constexpr const char* kMagenta = "35";
constexpr const char* kCurrent = "1;36";  // the current step's row: bold cyan

// The field at `path`, or nullptr when a step is missing or not an object.
const Json* At(const Json& j, std::initializer_list<const char*> path) {
  const Json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Str(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

bool Bool(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v && v->is_boolean() && v->get<bool>();
}

// A number or a string as written ("25%", 1); "" for anything else.
std::string Scalar(const Json* v) {
  if (v == nullptr) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return std::to_string(v->get<long long>());
  if (v->is_number()) return v->dump();
  return "";
}

const Json& EmptyArray() {
  static const Json empty = Json::array();
  return empty;
}

const Json& Array(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v && v->is_array() ? *v : EmptyArray();
}

std::string Or(const std::string& s, const char* fallback) { return s.empty() ? fallback : s; }

struct Step {
  int number = 0;
  std::string selector;
  std::string max_update;
  int complete = 0;
  int total = 0;
  std::string state;
  std::vector<std::string> apps;  // sorted
};

// What one ApplicationSet's JSON says about its rollout, read once for every view.
struct SetInfo {
  std::string name;
  std::string strategy;
  // Progressing, Complete, Paused, Deadline exceeded, Failed, Aborted, Rolled back, Held by sync
  // window, Invalid, Error, "-"
  std::string status;
  std::string message;
  std::string since;  // the AGE's start: when its resources were first generated
  std::string file;
  int current = 0;  // the current step, 0 when none
  int complete = 0;
  int total = 0;
  std::vector<Step> steps;
  std::map<std::string, const Json*> entries;  // app -> its applicationStatus entry
  std::set<std::string> skipped;
};

SetInfo Describe(const std::string& key, const Json& set) {
  SetInfo info;
  info.name = Or(Str(set, {"metadata", "name"}), key.c_str());
  info.strategy = Or(Str(set, {"spec", "strategy", "type"}), "-");
  info.file = Str(set, {"spec", "file"});
  info.status = engine::RolloutStatusWord(set, &info.message);
  // AGE: the set has no creation time of its own; its ResourcesUpToDate condition changed
  // when its applications were first generated (else the earliest condition change).
  std::string earliest;
  for (const Json& c : Array(set, {"status", "conditions"})) {
    const std::string t = Str(c, {"lastTransitionTime"});
    if (t.empty()) continue;
    if (Str(c, {"type"}) == "ResourcesUpToDate") info.since = t;
    if (earliest.empty() || t < earliest) earliest = t;
  }
  if (info.since.empty()) info.since = earliest;
  if (const Json* skipped = At(set, {"status", "rollout", "skipped"});
      skipped && skipped->is_object()) {
    for (const auto& [app, _] : skipped->items()) info.skipped.insert(app);
  }
  std::map<int, std::vector<std::string>> by_step;
  for (const Json& e : Array(set, {"status", "applicationStatus"})) {
    const std::string app = Str(e, {"application"});
    if (app.empty()) continue;
    info.entries[app] = &e;
    const bool done = Str(e, {"status"}) == "Healthy" || info.skipped.count(app) > 0;
    ++info.total;
    if (done) ++info.complete;
    int step = 0;
    try {
      step = std::stoi(Str(e, {"step"}));
    } catch (...) {
      step = 0;
    }
    if (step > 0) by_step[step].push_back(app);
  }
  const Json& steps = Array(set, {"spec", "strategy", "rollingSync", "steps"});
  for (size_t i = 0; i < steps.size(); ++i) {
    Step s;
    s.number = static_cast<int>(i) + 1;
    s.selector = SelectorText(steps[i]);
    const Json* max = At(steps[i], {"maxUpdate"});
    s.max_update = max ? Scalar(max) : "100%";
    if (s.max_update == "0") s.max_update = "0 (manual)";
    s.apps = by_step[s.number];
    std::sort(s.apps.begin(), s.apps.end());
    s.total = static_cast<int>(s.apps.size());
    for (const auto& app : s.apps) {
      const Json* e = info.entries[app];
      if (Str(*e, {"status"}) == "Healthy" || info.skipped.count(app)) ++s.complete;
    }
    info.steps.push_back(std::move(s));
  }
  // The current step: the rollout's own (status.rollout.step), else the first incomplete one;
  // none once the rollout has completed.
  if (info.status != "Complete") {
    const Json* step = At(set, {"status", "rollout", "step"});
    if (step && step->is_number_integer()) info.current = step->get<int>();
    if (info.current <= 0 || info.current > static_cast<int>(info.steps.size())) {
      info.current = 0;
      for (const Step& s : info.steps) {
        if (s.complete < s.total) {
          info.current = s.number;
          break;
        }
      }
    }
  }
  const bool paused = Bool(set, {"status", "rollout", "paused"});
  const bool exceeded = Bool(set, {"status", "rollout", "stepDeadlineExceeded"});
  for (Step& s : info.steps) {
    if (s.number == info.current) {
      s.state = info.status == "Aborted"               ? "Aborted"
                : info.status == "Failed"              ? "Failed"
                : info.status == "Rolled back"         ? "Rolled back"
                : info.status == "Held by sync window" ? "Held by sync window"
                : paused                               ? "Paused"
                : exceeded                             ? "Deadline exceeded"
                                                       : "Progressing";
    } else if (s.complete == s.total || (info.current == 0 && info.status == "Complete")) {
      s.state = "Complete";
    } else {
      s.state = s.number < info.current ? "Progressing" : "Waiting";
    }
  }
  return info;
}

std::string StepText(const SetInfo& info) {
  if (info.steps.empty()) return "-";
  return (info.current > 0            ? std::to_string(info.current)
          : info.status == "Complete" ? std::to_string(info.steps.size())
                                      : std::string("-")) +
         "/" + std::to_string(info.steps.size());
}

// The cluster an app deploys to: the destination's name, else the cluster whose server is the
// destination's server, else that server.
std::string ClusterOf(const Json& app, const FleetState& state) {
  const std::string name = Str(app, {"spec", "destination", "name"});
  if (!name.empty()) return name;
  const std::string server = Str(app, {"spec", "destination", "server"});
  for (const auto& [cluster, c] : state.Of("clusters")) {
    if (!server.empty() && Str(c, {"server"}) == server) return cluster;
  }
  return Or(server, "-");
}

struct Owner {
  std::string set;
  const Json* entry = nullptr;
};

std::map<std::string, Owner> Owners(const FleetState& state) {
  std::map<std::string, Owner> out;
  for (const auto& [key, set] : state.Of("applicationsets")) {
    for (const Json& e : Array(set, {"status", "applicationStatus"})) {
      const std::string app = Str(e, {"application"});
      if (!app.empty()) out[app] = Owner{key, &e};
    }
  }
  return out;
}

std::string ShortRevision(const Json& app) {
  std::string rev = Str(app, {"status", "sync", "revision"});
  if (rev.empty()) {
    for (const Json& r : Array(app, {"status", "sync", "revisions"})) {
      if (r.is_string()) rev += (rev.empty() ? "" : ",") + r.get<std::string>().substr(0, 7);
    }
    return Or(rev, "-");
  }
  return rev.size() == 40 ? rev.substr(0, 7) : rev;
}

View Table(const std::vector<std::string>& headers, const std::vector<std::string>& keys,
           const std::vector<Row>& rows, const ViewOptions& options) {
  View view;
  view.text = RenderTable(headers, rows, options.color);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string line = RenderRow(headers, rows, i, false);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    view.lines.emplace_back(keys[i], line);
  }
  return view;
}

}  // namespace

const char* HealthStyle(const std::string& h) {
  if (h == "Healthy") return kGreen;
  if (h == "Progressing") return kYellow;
  if (h == "Degraded" || h == "Missing") return kRed;
  if (h == "Suspended") return kMagenta;
  return nullptr;
}

const char* SyncStyle(const std::string& s) {
  if (s == "Synced") return kGreen;
  if (s == "OutOfSync") return kYellow;
  return nullptr;
}

const char* StateStyle(const std::string& s) {
  if (s == "Complete" || s == "Healthy") return kGreen;
  if (s == "Progressing" || s == "Pending") return kYellow;
  if (s == "Paused") return kMagenta;
  if (s == "Deadline exceeded" || s == "Invalid" || s == "Error" || s == "Failed" ||
      s == "Aborted" || s == "Rolled back")
    return kRed;
  return nullptr;
}

// kubectl's selector text: "env in (qa,staging),region notin (eu)".
std::string SelectorText(const Json& step) {
  std::string out;
  for (const Json& e : Array(step, {"matchExpressions"})) {
    std::string values;
    for (const Json& v : Array(e, {"values"})) {
      if (!v.is_string()) continue;
      values += (values.empty() ? "" : ",") + v.get<std::string>();
    }
    const std::string op = Str(e, {"operator"});
    std::string word = op == "In" ? "in" : op == "NotIn" ? "notin" : op;
    out += (out.empty() ? "" : ",") + Str(e, {"key"}) + " " + word + " (" + values + ")";
  }
  return out.empty() ? "<none>" : out;
}

std::string FleetState::KeyOf(const std::string& collection, const Json& object) {
  if (collection == "clusters" || collection == "rows") return Str(object, {"name"});
  if (collection == "workloads") {
    const std::string name = Str(object, {"name"});
    if (name.empty()) return "";
    return Str(object, {"cluster"}) + "/" + Str(object, {"namespace"}) + "/" +
           Str(object, {"kind"}) + "/" + name;
  }
  return Str(object, {"metadata", "name"});
}

void FleetState::SetList(const std::string& collection, const Json& list) {
  auto& objects = collections[collection];
  objects.clear();
  for (const Json& item : Array(list, {"items"})) {
    const std::string key = KeyOf(collection, item);
    if (!key.empty()) objects[key] = item;
  }
}

bool FleetState::Apply(const std::string& collection, const Json& event) {
  const std::string type = Str(event, {"type"});
  const Json* object = At(event, {"object"});
  if (object == nullptr || !object->is_object()) return false;
  if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") return false;
  const std::string key = KeyOf(collection, *object);
  if (key.empty()) return false;
  if (type == "DELETED") {
    collections[collection].erase(key);
  } else {
    collections[collection][key] = *object;
  }
  return true;
}

const std::map<std::string, Json>& FleetState::Of(const std::string& collection) const {
  static const std::map<std::string, Json> empty;
  auto it = collections.find(collection);
  return it == collections.end() ? empty : it->second;
}

View AppSetsView(const FleetState& state, const std::string& name, const ViewOptions& options) {
  std::vector<std::string> headers = {"NAME", "STRATEGY", "STEP", "APPS", "STATUS", "AGE"};
  if (options.wide) headers.insert(headers.end(), {"FILE", "MESSAGE"});
  std::vector<std::string> keys;
  std::vector<Row> rows;
  for (const auto& [key, set] : state.Of("applicationsets")) {
    if (!name.empty() && key != name) continue;
    const SetInfo info = Describe(key, set);
    Row row = {Cell{info.name},
               Cell{info.strategy},
               Cell{StepText(info)},
               Cell{std::to_string(info.complete) + "/" + std::to_string(info.total)},
               Cell{info.status, StateStyle(info.status)},
               Cell{Age(info.since, options.now)}};
    if (options.wide) row.insert(row.end(), {Cell{Or(info.file, "-")}, Cell{info.message}});
    keys.push_back(key);
    rows.push_back(std::move(row));
  }
  return Table(headers, keys, rows, options);
}

View AppsView(const FleetState& state, const std::string& name, const ViewOptions& options) {
  std::vector<std::string> headers = {"NAME", "APPSET", "CLUSTER", "STEP",
                                      "SYNC", "HEALTH", "ROLLOUT", "AGE"};
  if (options.wide) headers.insert(headers.end(), {"NAMESPACE", "REVISION", "MESSAGE"});
  const std::map<std::string, Owner> owners = Owners(state);
  std::vector<std::string> keys;
  std::vector<Row> rows;
  for (const auto& [key, app] : state.Of("applications")) {
    if (!name.empty() && key != name) continue;
    const auto owner = owners.find(key);
    const Json empty = Json::object();
    const Json& entry = owner != owners.end() && owner->second.entry ? *owner->second.entry : empty;
    const std::string sync = Or(Str(app, {"status", "sync", "status"}), "Unknown");
    const std::string health = Or(Str(app, {"status", "health", "status"}), "Unknown");
    const std::string rollout = Or(Str(entry, {"status"}), "-");
    Row row = {Cell{key},
               Cell{owner != owners.end() ? owner->second.set : "-"},
               Cell{ClusterOf(app, state)},
               Cell{Or(Str(entry, {"step"}), "-")},
               Cell{sync, SyncStyle(sync)},
               Cell{health, HealthStyle(health)},
               Cell{rollout, StateStyle(rollout)},
               Cell{Age(Str(entry, {"lastTransitionTime"}), options.now)}};
    if (options.wide) {
      row.insert(row.end(), {Cell{Or(Str(app, {"spec", "destination", "namespace"}), "-")},
                             Cell{ShortRevision(app)}, Cell{Str(entry, {"message"})}});
    }
    keys.push_back(key);
    rows.push_back(std::move(row));
  }
  return Table(headers, keys, rows, options);
}

View ClustersView(const FleetState& state, const std::string& name, const ViewOptions& options) {
  std::vector<std::string> headers = {"NAME", "SERVER", "STATUS"};
  if (options.wide) headers.insert(headers.end(), {"UP", "SYNCED"});
  std::vector<std::string> keys;
  std::vector<Row> rows;
  for (const auto& [key, c] : state.Of("clusters")) {
    if (!name.empty() && key != name) continue;
    const bool up = Bool(c, {"up"});
    const bool synced = Bool(c, {"synced"});
    // Up and every watch listed: Ready; up but still listing: Syncing; else Unreachable.
    const std::string status = !up ? "Unreachable" : synced ? "Ready" : "Syncing";
    Row row = {Cell{key}, Cell{Or(Str(c, {"server"}), "-")},
               Cell{status, !up      ? kRed
                            : synced ? kGreen
                                     : kYellow}};
    if (options.wide) {
      row.insert(row.end(), {Cell{up ? "true" : "false"}, Cell{synced ? "true" : "false"}});
    }
    keys.push_back(key);
    rows.push_back(std::move(row));
  }
  return Table(headers, keys, rows, options);
}

View WorkloadsView(const FleetState& state, const std::string& name, const ViewOptions& options) {
  std::vector<std::string> headers = {"CLUSTER",     "NAMESPACE", "KIND", "NAME",
                                      "PROGRESSING", "DEADLINE",  "AGE"};
  if (options.wide) headers.insert(headers.end(), {"REVISION", "MESSAGE"});
  std::vector<std::string> keys;
  std::vector<Row> rows;
  for (const auto& [key, w] : state.Of("workloads")) {
    if (!name.empty() && Str(w, {"name"}) != name && key != name) continue;
    const bool exceeded = Bool(w, {"exceeded"});
    std::string progressing = Or(Str(w, {"condition", "reason"}), "-");
    const std::string deadline = Scalar(At(w, {"deadlineSeconds"}));
    Row row = {Cell{Str(w, {"cluster"})},
               Cell{Str(w, {"namespace"})},
               Cell{Str(w, {"kind"})},
               Cell{Str(w, {"name"})},
               Cell{progressing, exceeded ? kRed : nullptr},
               Cell{deadline.empty() ? "-" : deadline + "s"},
               Cell{Age(Str(w, {"condition", "lastTransitionTime"}), options.now)}};
    if (options.wide) {
      row.insert(row.end(),
                 {Cell{Or(Str(w, {"revision"}), "-")}, Cell{Str(w, {"condition", "message"})}});
    }
    keys.push_back(key);
    rows.push_back(std::move(row));
  }
  return Table(headers, keys, rows, options);
}

void AppendAnalysis(const Json& analysis, View& view, bool color) {
  if (!analysis.is_object()) return;
  const Json& list = Array(analysis, {"measurements"});
  const Json* step = At(analysis, {"step"});
  if (list.empty() || step == nullptr || !step->is_number_integer()) return;
  const long long n = step->get<long long>();
  long long passed = 0;
  std::vector<Row> rows;
  for (const Json& m : list) {
    const bool ok = Bool(m, {"passed"});
    if (ok) ++passed;
    const Json* value = At(m, {"value"});
    const std::string shown = value && value->is_number() ? value->dump() : "-";
    const std::string error = Str(m, {"error"});
    rows.push_back(Row{Cell{Str(m, {"time"})}, Cell{shown},
                       Cell{ok ? "Passed" : "Failed", ok ? kGreen : kRed}, Cell{Or(error, "")}});
    view.lines.emplace_back("analysis/" + Str(m, {"time"}),
                            "step " + std::to_string(n) + " analysis at " + Str(m, {"time"}) +
                                ": " + shown + (ok ? " passed" : " failed") +
                                (error.empty() ? "" : " (" + error + ")"));
  }
  view.text += "\nStep " + std::to_string(n) + " analysis: " + std::to_string(passed) + "/" +
               Or(Scalar(At(analysis, {"count"})), "?") + " passed, " +
               std::to_string(static_cast<long long>(list.size()) - passed) + " failed; " +
               Or(Str(analysis, {"query"}), "?") + " " +
               Or(Str(analysis, {"successCondition"}), "?") + "\n";
  view.text += RenderTable({"TIME", "VALUE", "RESULT", "ERROR"}, rows, color);
}

// [issue 29] The set's rollback (RollbackSummaryOf) in one line, then each failed app the
// summary names with its reason.
void AppendRollback(const Json& rollback, View& view) {
  const std::string line = engine::RollbackLine(rollback);
  if (line.empty()) return;
  view.lines.emplace_back("rollback", line);
  view.text += "\n" + line + "\n";
  for (const Json& failed : Array(rollback, {"failed"})) {
    const std::string message = Str(failed, {"message"});
    view.text += "  rollback of " + Str(failed, {"application"}) + " failed" +
                 (message.empty() ? "" : ": " + message) + "\n";
  }
}

View SetNotFoundView(const std::string& name) {
  View view;
  view.text = "applicationset \"" + name + "\" not found\n";
  view.lines.emplace_back("appset/" + name, view.text.substr(0, view.text.size() - 1));
  view.found = false;
  return view;
}

View AppSetStepView(const FleetState& state, const std::string& name, const ViewOptions& options) {
  View view;
  const auto& sets = state.Of("applicationsets");
  auto it = sets.find(name);
  if (it == sets.end()) {
    return SetNotFoundView(name);
  }
  const SetInfo info = Describe(it->first, it->second);
  const std::string apps_done = std::to_string(info.complete) + "/" + std::to_string(info.total);
  view.text = AppSetsView(state, name, ViewOptions{false, options.color, options.now}).text;
  view.lines.emplace_back("appset/" + name, "appset " + info.name + ": step " + StepText(info) +
                                                " " + info.status + ", " + apps_done +
                                                " apps complete");
  if (info.steps.empty()) {
    if (!info.message.empty()) view.text += "\n" + info.message + "\n";
    return view;
  }

  std::vector<Row> steps;
  for (const Step& s : info.steps) {
    const bool current = s.number == info.current;
    const char* style = current ? kCurrent : nullptr;
    const std::string count = std::to_string(s.complete) + "/" + std::to_string(s.total);
    const std::string bar = ProgressBar(s.complete, s.total, 10);
    steps.push_back(Row{Cell{std::to_string(s.number), style}, Cell{s.selector, style},
                        Cell{count, style}, Cell{bar, current ? kCurrent : StateStyle(s.state)},
                        Cell{s.max_update, style},
                        Cell{s.state, current ? kCurrent : StateStyle(s.state)}});
    view.lines.emplace_back("step/" + std::to_string(s.number),
                            "step " + std::to_string(s.number) + " (" + s.selector + "): " + count +
                                " " + bar + " maxUpdate " + s.max_update + " " + s.state);
  }
  view.text += "\n" + RenderTable({"STEP", "SELECTOR", "APPS", "PROGRESS", "MAXUPDATE", "STATE"},
                                  steps, options.color);

  // Every app's line for a watch on a pipe; the current step's apps in the text.
  const auto& apps = state.Of("applications");
  auto app_row = [&](const std::string& app) {
    const auto a = apps.find(app);
    const Json empty = Json::object();
    const Json& object = a != apps.end() ? a->second : empty;
    const std::string health = Or(Str(object, {"status", "health", "status"}), "Unknown");
    const std::string sync = Or(Str(object, {"status", "sync", "status"}), "Unknown");
    const Json* entry = info.entries.at(app);
    const std::string rollout = info.skipped.count(app) ? "Skipped" : Str(*entry, {"status"});
    return Row{Cell{app}, Cell{health, HealthStyle(health)}, Cell{sync, SyncStyle(sync)},
               Cell{a != apps.end() ? ClusterOf(object, state) : "-"},
               Cell{Or(rollout, "-"), StateStyle(rollout)}};
  };
  for (const Step& s : info.steps) {
    for (const std::string& app : s.apps) {
      const Row r = app_row(app);
      view.lines.emplace_back("app/" + app, "app " + app + " (step " + std::to_string(s.number) +
                                                "): " + r[1].text + " " + r[2].text + " on " +
                                                r[3].text + ", rollout " + r[4].text);
    }
  }
  if (info.current > 0) {
    const Step& s = info.steps[static_cast<size_t>(info.current - 1)];
    std::vector<Row> rows;
    for (const std::string& app : s.apps) rows.push_back(app_row(app));
    view.text += "\nStep " + std::to_string(s.number) + " applications:\n";
    view.text +=
        RenderTable({"APPLICATION", "HEALTH", "SYNC", "CLUSTER", "ROLLOUT"}, rows, options.color);
  }
  AppendAnalysis(engine::AnalysisOf(it->second), view, options.color);
  AppendRollback(engine::RollbackSummaryOf(it->second), view);
  if (!info.message.empty()) view.text += "\n" + info.message + "\n";
  return view;
}

}  // namespace fleetwave::cli
