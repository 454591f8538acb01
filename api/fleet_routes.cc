#include "api/fleet_routes.h"

#include <string_view>
#include <utility>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/appset/appset_summary.h"
#include "engine/progress/workload.h"
#include "engine/url_query.h"

namespace fleetwave::api {
namespace {

using engine::Json;

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiResponse Ok(std::string body) {
  ApiResponse r;
  r.body = std::move(body);
  return r;
}

ApiResponse WatchOf(const std::string& collection,
                    std::function<bool(const Json&)> filter = nullptr) {
  ApiResponse r;
  r.content_type = "application/json-lines";
  r.watch = collection;
  if (filter) {
    r.watch_filter = std::make_shared<const std::function<bool(const Json&)>>(std::move(filter));
  }
  return r;
}

// `{"apiVersion","kind","metadata":{continue?,remainingItemCount?},"items":[...]}` from item
// texts, so a long page is never one big JSON value first.
std::string PagedList(const std::string& api_version, const std::string& kind,
                      const std::vector<const Json*>& items, const engine::Page& page) {
  Json metadata = Json::object();
  if (!page.next.empty()) {
    metadata["continue"] = page.next;
    metadata["remainingItemCount"] = page.remaining;
  }
  std::string body = "{\"apiVersion\":" + Dump(api_version) + ",\"kind\":" + Dump(kind) +
                     ",\"metadata\":" + Dump(metadata) + ",\"items\":[";
  bool first = true;
  for (const Json* item : items) {
    if (item == nullptr) continue;
    if (!first) body += ",";
    first = false;
    body += Dump(*item);
  }
  body += "]}";
  return body;
}

struct Matched {
  std::vector<actors::StatusBoard::Row> rows;  // the page's rows, in name order
  engine::Page page;
};

// The board's rows that match, cut to the page. With exactly one set named, only its rows are
// read.
Matched MatchRows(const actors::StatusBoard& board, const engine::AppQuery& query) {
  std::vector<actors::StatusBoard::Row> all =
      query.filter.appsets.size() == 1 ? board.RowsOf(*query.filter.appsets.begin()) : board.Rows();
  std::vector<actors::StatusBoard::Row> matching;
  for (auto& row : all) {
    if (row.row && query.filter.Matches(*row.row)) matching.push_back(std::move(row));
  }
  std::vector<std::string_view> names;
  names.reserve(matching.size());
  for (const auto& row : matching) names.push_back(row.row->name);
  Matched m;
  m.page = engine::PageOf(names, query.paging);
  m.rows.assign(std::make_move_iterator(matching.begin() + static_cast<long>(m.page.begin)),
                std::make_move_iterator(matching.begin() + static_cast<long>(m.page.end)));
  return m;
}

std::optional<engine::AppQuery> Parse(const ApiRequest& request, ApiResponse* refusal) {
  std::string error;
  auto query = engine::ParseAppQuery(request.query, &error);
  if (!query) *refusal = ApiError(400, error);
  return query;
}

}  // namespace

bool HasFleetQuery(const std::string& query) {
  for (const auto& [key, _] : engine::ParseQueryString(query)) {
    if (key != "watch") return true;
  }
  return false;
}

ApiResponse FilteredApplications(const actors::StatusBoard& board, const ApiRequest& request) {
  ApiResponse refusal;
  const auto query = Parse(request, &refusal);
  if (!query) return refusal;
  if (WantsWatch(request.query)) {
    // An Application's step and rollout status live in its set's JSON, so its own events do
    // not say when it starts or stops matching; its row does.
    return ApiError(400,
                    "a watch of applications takes no filters: watch /api/v1/rows with the same "
                    "filters (one small row per application)");
  }
  const Matched m = MatchRows(board, *query);
  std::vector<actors::StatusBoard::JsonPtr> apps;
  apps.reserve(m.rows.size());
  for (const auto& row : m.rows) apps.push_back(board.Application(row.row->name));
  std::vector<const Json*> items;
  items.reserve(apps.size());
  for (const auto& app : apps) items.push_back(app.get());
  return Ok(PagedList("argoproj.io/v1alpha1", "ApplicationList", items, m.page));
}

ApiResponse RowsRoute(const actors::StatusBoard& board, const ApiRequest& request) {
  ApiResponse refusal;
  auto query = Parse(request, &refusal);
  if (!query) return refusal;
  if (WantsWatch(request.query)) {
    if (query->paging.limit || !query->paging.start_after.empty()) {
      return ApiError(400, "a watch is not paged: drop limit and continue");
    }
    if (!query->filter.NeedsRows() && query->filter.appsets.empty()) {
      return WatchOf(actors::StatusBoard::kRows);
    }
    return WatchOf(actors::StatusBoard::kRows,
                   [filter = std::move(query->filter)](const Json& row) {
                     return filter.Matches(engine::AppRowFromJson(row));
                   });
  }
  const Matched m = MatchRows(board, *query);
  std::vector<const Json*> items;
  items.reserve(m.rows.size());
  for (const auto& row : m.rows) items.push_back(row.json.get());
  return Ok(PagedList("fleetwave.io/v1", "ApplicationRowList", items, m.page));
}

ApiResponse SummariesRoute(const actors::StatusBoard& board, const ApiRequest& request) {
  std::set<std::string> sets;
  for (const auto& [key, value] : engine::ParseQueryString(request.query)) {
    if (key == "watch") continue;
    if (key != "appset") {
      return ApiError(400, "unknown query parameter \"" + key + "\" (allowed: appset, watch)");
    }
    std::string_view v = value;
    while (true) {
      const size_t comma = v.find(',');
      if (!v.substr(0, comma).empty()) sets.emplace(v.substr(0, comma));
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  auto wanted = [sets](const Json& summary) {
    if (sets.empty()) return true;
    const Json* name = engine::FieldAt(summary, {"metadata", "name"});
    return name != nullptr && name->is_string() && sets.count(name->get<std::string>()) > 0;
  };
  if (WantsWatch(request.query)) {
    return sets.empty() ? WatchOf(actors::StatusBoard::kSummaries)
                        : WatchOf(actors::StatusBoard::kSummaries, wanted);
  }
  const auto all = board.Summaries();
  std::vector<const Json*> items;
  for (const auto& s : all) {
    if (s && wanted(*s)) items.push_back(s.get());
  }
  // The input files that failed to load, as the sets list carries them: the web view reads
  // them here, without every set's full status.
  Json errors = Json::array();
  for (const auto& [file, error] : board.Files()) {
    if (error) errors.push_back(Json{{"file", file}, {"message", *error}});
  }
  std::string body =
      PagedList("fleetwave.io/v1", "ApplicationSetSummaryList", items, engine::Page{});
  body.insert(body.size() - 1, ",\"errors\":" + Dump(errors));
  return Ok(std::move(body));
}

ApiResponse SummaryRoute(const actors::StatusBoard& board, const std::string& appset) {
  const auto summary = board.Summary(appset);
  if (!summary) return ApiError(404, "applicationset \"" + appset + "\" not found");
  return Ok(Dump(*summary));
}

}  // namespace fleetwave::api
