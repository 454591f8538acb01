// fleetwave get appsets|apps|clusters|workloads [NAME] [-o wide|json|yaml] [--watch]: what the
// daemon's API serves, as kubectl-style tables (rollout_view.h), or the API's own JSON/YAML
// (`get apps -o yaml` is what `fleetwave plan --apps` reads). `get appset NAME` shows the set's
// steps and the apps of its current step. --watch follows the API's watch streams
// (get_watch.h): redrawn in place on a terminal, one line per change on a pipe.
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "engine/progress/workload.h"
#include "engine/yaml_json.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_client.h"
#include "tools/fleetwave/get_watch.h"
#include "tools/fleetwave/rollout_view.h"
#include "tools/fleetwave/summary_view.h"

namespace fleetwave::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetwave get appsets|apps|clusters|workloads [NAME] [-o wide|json|yaml] [--watch]\n"
    "                     [--all] [--status S[,S]] [--step N[,N]] [--cluster C[,C]] [-l SELECTOR]\n"
    "                     [--appset A] [--server URL] [--token-file F]\n";

// The filter flags and the API query parameter each becomes.
constexpr std::pair<const char*, const char*> kFilterFlags[] = {
    {"--status", "status"},          {"--step", "step"},
    {"--cluster", "cluster"},        {"-l", "labelSelector"},
    {"--selector", "labelSelector"}, {"--appset", "appset"}};

// Percent-encodes a query value (selectors carry '=', '!', ' ', '(').
std::string QueryEscape(const std::string& value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ',') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Page size of a one-shot list: bounds each answer, however large the fleet.
constexpr int kPageSize = 500;

engine::Time Now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

// kubectl's aliases, singular and plural.
std::optional<std::string> Collection(const std::string& word) {
  if (word == "appsets" || word == "appset" || word == "applicationsets" ||
      word == "applicationset") {
    return "applicationsets";
  }
  if (word == "apps" || word == "app" || word == "applications" || word == "application") {
    return "applications";
  }
  if (word == "clusters" || word == "cluster") return "clusters";
  if (word == "workloads" || word == "workload") return "workloads";
  return std::nullopt;
}

std::string Singular(const std::string& collection) {
  if (collection == "applicationsets") return "applicationset";
  if (collection == "applications") return "application";
  if (collection == "clusters") return "cluster";
  return "workload";
}

// The word `fleetwave get` lists a collection with.
std::string ListWord(const std::string& collection) {
  if (collection == "applicationsets") return "appsets";
  if (collection == "applications") return "apps";
  return collection;
}

std::string Print(const engine::Json& doc, const std::string& format) {
  if (format == "yaml") return engine::JsonToYaml(doc);
  return doc.dump(2, ' ', false, engine::Json::error_handler_t::replace) + "\n";
}

}  // namespace

GetRequest::Kind GetKindOf(const std::string& collection, const std::string& name) {
  if (collection == "applicationsets") {
    return name.empty() ? GetRequest::Kind::kAppSets : GetRequest::Kind::kAppSetSteps;
  }
  if (collection == "applications") return GetRequest::Kind::kApps;
  if (collection == "clusters") return GetRequest::Kind::kClusters;
  return GetRequest::Kind::kWorkloads;
}

std::vector<std::string> CollectionsFor(GetRequest::Kind kind) {
  switch (kind) {
    case GetRequest::Kind::kAppSets:
      return {"applicationsets"};
    case GetRequest::Kind::kAppSetSteps:
    case GetRequest::Kind::kApps:
      // An app's step and rollout state live in its set; its cluster's name in the clusters.
      return {"applications", "applicationsets", "clusters"};
    case GetRequest::Kind::kAppSetSummary:
      return {"summaries", "rows"};
    case GetRequest::Kind::kRows:
      return {"rows"};
    case GetRequest::Kind::kClusters:
      return {"clusters"};
    case GetRequest::Kind::kWorkloads:
      return {"workloads"};
  }
  return {};
}

std::string PathFor(const GetRequest& request, const std::string& collection) {
  const std::string path = "/api/v1/" + collection;
  if (request.kind == GetRequest::Kind::kAppSetSummary &&
      (collection == "summaries" || collection == "rows")) {
    return path + "?appset=" + QueryEscape(request.name);
  }
  if (request.kind == GetRequest::Kind::kRows && collection == "rows") {
    return path + "?" + request.rows_query;
  }
  return path;
}

View RenderGet(const GetRequest& request, const FleetState& state, const ViewOptions& options) {
  switch (request.kind) {
    case GetRequest::Kind::kAppSetSummary:
      return AppSetSummaryView(state, request.name, options);
    case GetRequest::Kind::kRows:
      return RowsView(state, options);
    case GetRequest::Kind::kAppSets:
      return AppSetsView(state, "", options);
    case GetRequest::Kind::kAppSetSteps:
      return AppSetStepView(state, request.name, options);
    case GetRequest::Kind::kApps:
      return AppsView(state, request.name, options);
    case GetRequest::Kind::kClusters:
      return ClustersView(state, request.name, options);
    case GetRequest::Kind::kWorkloads:
      return WorkloadsView(state, request.name, options);
  }
  return View{};
}

int RunGet(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  std::set<std::string> flags = ClientFlags();
  flags.insert({"-o", "--output"});
  for (const auto& [flag, _] : kFilterFlags) flags.insert(flag);
  auto args = ParseArgs(argv, flags, {"--watch", "-w", "--all"}, &error);
  if (args && (args->positional.empty() || args->positional.size() > 2)) {
    error = args->positional.empty() ? "what to get? appsets, apps, clusters or workloads"
                                     : "too many arguments";
    args.reset();
  }
  std::optional<std::string> collection;
  if (args) {
    collection = Collection(args->positional[0]);
    if (!collection) {
      error = "unknown resource \"" + args->positional[0] +
              "\" (one of appsets, apps, clusters, workloads)";
    }
  }
  const std::string format =
      args ? args->Get("-o").value_or(args->Get("--output").value_or("")) : "";
  if (args && collection && !format.empty() && format != "wide" && format != "json" &&
      format != "yaml") {
    error = "unknown output format \"" + format + "\" (one of wide, json, yaml)";
  }
  if (!args || !collection || !error.empty()) {
    err << "fleetwave get: " << error << "\n" << kUsage;
    return 2;
  }
  auto settings = ResolveClientSettings(
      *args, [](const char* name) { return std::getenv(name); }, &error);
  if (!settings) {
    err << "fleetwave get: " << error << "\n";
    return 1;
  }
  auto client = MakeHttpDaemonClient(*settings);

  GetRequest request;
  request.collection = *collection;
  request.name = args->positional.size() == 2 ? args->positional[1] : "";
  request.kind = GetKindOf(request.collection, request.name);
  request.format = format;
  // `get appset NAME`: the summary; --all the whole step view; filters (or `get apps` with
  // filters) the matching rows.
  std::string filters;
  for (const auto& [flag, parameter] : kFilterFlags) {
    if (auto value = args->Get(flag)) {
      filters += std::string(filters.empty() ? "" : "&") + parameter + "=" + QueryEscape(*value);
    }
  }
  const bool filtered = !filters.empty();
  if (filtered && !(request.collection == "applications" ||
                    (request.collection == "applicationsets" && !request.name.empty()))) {
    err << "fleetwave get: filters (--status, --step, --cluster, -l, --appset) apply to apps and "
           "to one appset\n"
        << kUsage;
    return 2;
  }
  if (request.kind == GetRequest::Kind::kAppSetSteps && !args->Has("--all")) {
    request.kind = GetRequest::Kind::kAppSetSummary;
  }
  if (filtered && format != "json" && format != "yaml") {
    request.kind = GetRequest::Kind::kRows;
    request.rows_query =
        (request.collection == "applicationsets" ? "appset=" + QueryEscape(request.name) + "&"
                                                 : std::string()) +
        filters;
  }
  // Colour and in-place redraws only on a terminal; NO_COLOR (no-color.org) and TERM=dumb
  // keep a terminal plain.
  const bool tty = &out == &std::cout && ::isatty(STDOUT_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  request.terminal = tty;
  request.color = tty && (no_color == nullptr || *no_color == '\0') &&
                  !(term != nullptr && std::string(term) == "dumb");

  if (args->Has("--watch") || args->Has("-w")) {
    return WatchGet(*client, *settings, request, out, err);
  }

  // -o json|yaml: the API's own objects (one by name where the API serves one).
  if (format == "json" || format == "yaml") {
    const bool by_name = !request.name.empty() && (request.collection == "applicationsets" ||
                                                   request.collection == "applications");
    const ApiReply reply =
        client->Get("/api/v1/" + request.collection + (by_name ? "/" + request.name : ""));
    if (!reply.ok()) {
      err << "fleetwave get: " << DescribeFailure(*settings, reply) << "\n";
      return 1;
    }
    engine::Json doc = engine::Json::parse(reply.body, nullptr, false);
    if (doc.is_discarded()) {
      err << "fleetwave get: the daemon's answer is not JSON\n";
      return 1;
    }
    if (!request.name.empty() && !by_name) {
      engine::Json items = engine::Json::array();
      if (doc.is_object() && doc.contains("items") && doc["items"].is_array()) {
        for (const auto& item : doc["items"]) {
          if (FleetState::KeyOf(request.collection, item) == request.name ||
              (item.is_object() && item.value("name", "") == request.name)) {
            items.push_back(item);
          }
        }
      }
      if (items.empty()) {
        err << "fleetwave get: " << Singular(request.collection) << " \"" << request.name
            << "\" not found\n";
        return 1;
      }
      doc = items.size() == 1 ? items[0] : engine::Json{{"items", items}};
    }
    out << Print(doc, format);
    return 0;
  }

  FleetState state;
  for (const std::string& c : CollectionsFor(request.kind)) {
    // Applications and rows come in pages, so no answer grows with the fleet.
    const bool paged = c == "applications" || c == "rows";
    const std::string base = PathFor(request, c);
    engine::Json items = engine::Json::array();
    std::string next;
    for (bool first = true; first || !next.empty(); first = false) {
      std::string path = base;
      if (paged) {
        path += std::string(base.find('?') == std::string::npos ? "?" : "&") +
                "limit=" + std::to_string(kPageSize) +
                (next.empty() ? "" : "&continue=" + QueryEscape(next));
      }
      const ApiReply reply = client->Get(path);
      if (!reply.ok()) {
        err << "fleetwave get: " << DescribeFailure(*settings, reply) << "\n";
        return 1;
      }
      engine::Json page = engine::Json::parse(reply.body, nullptr, false);
      next.clear();
      if (!page.is_object()) break;
      if (auto it = page.find("items"); it != page.end() && it->is_array()) {
        for (auto& item : *it) items.push_back(std::move(item));
      }
      if (const engine::Json* token = engine::FieldAt(page, {"metadata", "continue"});
          paged && token != nullptr && token->is_string()) {
        next = token->get<std::string>();
      }
    }
    state.SetList(c, engine::Json{{"items", std::move(items)}});
  }
  ViewOptions options;
  options.wide = format == "wide";
  options.color = request.color;
  options.now = Now();
  const View view = RenderGet(request, state, options);
  if (!request.name.empty() && view.lines.empty() && request.kind != GetRequest::Kind::kRows) {
    err << "fleetwave get: " << Singular(request.collection) << " \"" << request.name
        << "\" not found (fleetwave get " << ListWord(request.collection) << " lists them)\n";
    return 1;
  }
  const bool set_missing = (request.kind == GetRequest::Kind::kAppSetSteps &&
                            state.Of("applicationsets").count(request.name) == 0) ||
                           (request.kind == GetRequest::Kind::kAppSetSummary &&
                            state.Of("summaries").count(request.name) == 0);
  if (set_missing) {
    err << "fleetwave get: applicationset \"" << request.name
        << "\" not found (fleetwave get appsets lists them)\n";
    return 1;
  }
  if (view.lines.empty()) {
    err << "No resources found.\n";
    return 0;
  }
  out << view.text;
  return 0;
}

}  // namespace fleetwave::cli
