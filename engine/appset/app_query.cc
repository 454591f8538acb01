#include "engine/appset/app_query.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <initializer_list>

#include "engine/url_query.h"

namespace fleetwave::engine {
namespace {

constexpr size_t kMaxLimit = 10000;

const Json* At(const Json* j, std::initializer_list<const char*> path) {
  for (const char* key : path) {
    if (j == nullptr || !j->is_object()) return nullptr;
    auto it = j->find(key);
    if (it == j->end()) return nullptr;
    j = &*it;
  }
  return j;
}

std::string Str(const Json* j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(const std::set<std::string>& lowered, const std::string& value) {
  return lowered.empty() || lowered.count(Lower(value)) > 0;
}

std::optional<int> PositiveInt(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

AppDisplayStatus StatusOf(const AppRow& row, const RowFacts& facts) {
  if (facts.skipped.count(row.name)) return AppDisplayStatus::kSkipped;
  if (row.operation == "Failed" || row.operation == "Error") return AppDisplayStatus::kFailed;
  if (row.health == "Degraded") return AppDisplayStatus::kDegraded;
  const bool late_step = facts.deadline_exceeded && row.step > 0 && row.step == facts.current_step;
  if (row.rollout == "Healthy") return AppDisplayStatus::kHealthy;
  if (late_step && !row.rollout.empty()) return AppDisplayStatus::kLate;
  if (row.rollout == "Progressing") return AppDisplayStatus::kProgressing;
  if (row.rollout == "Pending") return AppDisplayStatus::kPending;
  if (row.rollout == "Waiting") return AppDisplayStatus::kWaiting;
  // Without RollingSync the app's own status says it: synced and healthy is done, a running
  // sync or an unhealthy synced app is progressing, an out-of-sync one awaits its sync.
  if (row.operation == "Running") return AppDisplayStatus::kProgressing;
  if (row.sync == "Synced") {
    return row.health == "Healthy" ? AppDisplayStatus::kHealthy : AppDisplayStatus::kProgressing;
  }
  return row.sync == "OutOfSync" ? AppDisplayStatus::kPending : AppDisplayStatus::kWaiting;
}

constexpr std::array<const char*, 8> kStatusNames = {
    "Failed", "Degraded", "Late", "Skipped", "Progressing", "Pending", "Waiting", "Healthy"};

std::string HexEncode(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Splits a comma list into lowered, trimmed, non-empty values.
std::set<std::string> ValueSet(std::string_view text) {
  std::set<std::string> out;
  while (true) {
    const size_t comma = text.find(',');
    std::string_view v = text.substr(0, comma);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    if (!v.empty()) out.insert(Lower(v));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

const char* DisplayStatusName(AppDisplayStatus status) {
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<AppDisplayStatus> ParseDisplayStatus(std::string_view text) {
  const std::string lowered = Lower(text);
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (Lower(kStatusNames[i]) == lowered) return static_cast<AppDisplayStatus>(i);
  }
  return std::nullopt;
}

bool NeedsAttention(AppDisplayStatus status) {
  return status == AppDisplayStatus::kFailed || status == AppDisplayStatus::kDegraded ||
         status == AppDisplayStatus::kLate || status == AppDisplayStatus::kSkipped;
}

RowFacts RowFactsOf(const Json& appset) {
  RowFacts f;
  const Json* rollout = At(&appset, {"status", "rollout"});
  if (const Json* step = At(rollout, {"step"}); step && step->is_number_integer()) {
    f.current_step = static_cast<int>(step->get<long long>());
  }
  if (const Json* late = At(rollout, {"stepDeadlineExceeded"}); late && late->is_boolean()) {
    f.deadline_exceeded = late->get<bool>();
  }
  if (const Json* skipped = At(rollout, {"skipped"}); skipped && skipped->is_object()) {
    for (const auto& [app, _] : skipped->items()) f.skipped.insert(app);
  }
  return f;
}

std::optional<AppRow> AppRowOf(const Json& application, const Json* entry, const RowFacts& facts,
                               const std::string& appset) {
  const Json* app = &application;
  if (!app->is_object()) return std::nullopt;
  AppRow row;
  row.name = Str(app, {"metadata", "name"});
  if (row.name.empty()) return std::nullopt;
  row.appset = appset;
  row.cluster = Str(app, {"spec", "destination", "name"});
  if (row.cluster.empty()) row.cluster = Str(app, {"spec", "destination", "server"});
  row.health = Str(app, {"status", "health", "status"});
  row.sync = Str(app, {"status", "sync", "status"});
  row.operation = Str(app, {"status", "operationState", "phase"});
  if (const Json* labels = At(app, {"metadata", "labels"}); labels && labels->is_object()) {
    for (const auto& [k, v] : labels->items()) {
      if (v.is_string()) row.labels[k] = v.get<std::string>();
    }
  }
  std::string entry_message;
  if (entry != nullptr) {
    row.rollout = Str(entry, {"status"});
    row.step = PositiveInt(Str(entry, {"step"})).value_or(0);
    entry_message = Str(entry, {"message"});
  }
  row.message = Str(app, {"status", "operationState", "message"});
  if (row.message.empty()) row.message = Str(app, {"status", "health", "message"});
  if (row.message.empty()) row.message = entry_message;
  row.status = StatusOf(row, facts);
  return row;
}

std::vector<AppRow> AppRowsOf(const Json& appset, const std::vector<const Json*>& applications) {
  const RowFacts facts = RowFactsOf(appset);
  // app -> its applicationStatus entry (of duplicates, the last).
  std::map<std::string, const Json*> entries;
  if (const Json* list = At(&appset, {"status", "applicationStatus"}); list && list->is_array()) {
    for (const Json& e : *list) {
      const std::string app = Str(&e, {"application"});
      if (!app.empty()) entries[app] = &e;
    }
  }
  const std::string set_name = Str(&appset, {"metadata", "name"});
  std::vector<AppRow> rows;
  rows.reserve(applications.size());
  for (const Json* app : applications) {
    if (app == nullptr) continue;
    const auto e = entries.find(Str(app, {"metadata", "name"}));
    auto row = AppRowOf(*app, e != entries.end() ? e->second : nullptr, facts, set_name);
    if (row) rows.push_back(std::move(*row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const AppRow& a, const AppRow& b) { return a.name < b.name; });
  return rows;
}

bool AppFilter::Matches(const AppRow& row) const {
  if (!Contains(appsets, row.appset) || !Contains(health, row.health) ||
      !Contains(sync, row.sync) || !Contains(rollout, row.rollout) ||
      !Contains(clusters, row.cluster)) {
    return false;
  }
  if (!steps.empty() && steps.count(row.step) == 0) return false;
  if (!status.empty() && status.count(row.status) == 0) return false;
  if (!labels.Matches(row.labels)) return false;
  if (!search.empty() && Lower(row.name).find(search) == std::string::npos &&
      Lower(row.cluster).find(search) == std::string::npos) {
    return false;
  }
  return true;
}

bool AppFilter::NeedsRows() const {
  return !steps.empty() || !health.empty() || !sync.empty() || !rollout.empty() ||
         !status.empty() || !clusters.empty() || !labels.empty() || !search.empty();
}

std::optional<AppQuery> ParseAppQuery(std::string_view query, std::string* error,
                                      const std::set<std::string>& ignore) {
  AppQuery q;
  auto fail = [&](const std::string& message) -> std::optional<AppQuery> {
    *error = message;
    return std::nullopt;
  };
  for (const auto& [key, value] : ParseQueryString(query)) {
    if (key == "watch" || ignore.count(key)) continue;
    if (key == "appset") {
      q.filter.appsets = ValueSet(value);
    } else if (key == "step") {
      for (const std::string& v : ValueSet(value)) {
        const auto step = PositiveInt(v);
        if (!step) return fail("step: \"" + v + "\" is not a step number (1, 2, ...)");
        q.filter.steps.insert(*step);
      }
    } else if (key == "health") {
      q.filter.health = ValueSet(value);
    } else if (key == "sync") {
      q.filter.sync = ValueSet(value);
    } else if (key == "rollout") {
      q.filter.rollout = ValueSet(value);
    } else if (key == "status") {
      for (const std::string& v : ValueSet(value)) {
        const auto status = ParseDisplayStatus(v);
        if (!status) {
          std::string words;
          for (const char* name : kStatusNames) words += (words.empty() ? "" : ", ") + Lower(name);
          return fail("status: unknown value \"" + v + "\" (one of " + words + ")");
        }
        q.filter.status.insert(*status);
      }
    } else if (key == "cluster") {
      q.filter.clusters = ValueSet(value);
    } else if (key == "labelSelector") {
      std::string why;
      auto labels = LabelQuery::Parse(value, &why);
      if (!labels) return fail("labelSelector: " + why);
      q.filter.labels = std::move(*labels);
    } else if (key == "search") {
      q.filter.search = Lower(value);
    } else if (key == "limit") {
      const auto limit = PositiveInt(value);
      if (!limit || static_cast<size_t>(*limit) > kMaxLimit) {
        return fail("limit: \"" + value + "\" is not a number from 1 to " +
                    std::to_string(kMaxLimit));
      }
      q.paging.limit = static_cast<size_t>(*limit);
    } else if (key == "continue") {
      auto after = DecodeContinue(value);
      if (!after) return fail("continue: not a token this server issued (start the list again)");
      q.paging.start_after = std::move(*after);
    } else {
      return fail("unknown query parameter \"" + key +
                  "\" (allowed: appset, step, health, sync, rollout, status, cluster, "
                  "labelSelector, search, limit, continue, watch)");
    }
  }
  return q;
}

// "a1" + hex(name): versioned so a later format can be told apart.
std::string EncodeContinue(const std::string& last_name) { return "a1" + HexEncode(last_name); }

std::optional<std::string> DecodeContinue(std::string_view token) {
  if (token.size() < 4 || token.substr(0, 2) != "a1" || token.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 2; i < token.size(); i += 2) {
    const int hi = HexDigit(token[i]);
    const int lo = HexDigit(token[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

Page PageOf(const std::vector<std::string_view>& sorted_names, const Paging& paging) {
  Page page;
  page.begin = paging.start_after.empty()
                   ? 0
                   : static_cast<size_t>(std::upper_bound(sorted_names.begin(), sorted_names.end(),
                                                          std::string_view(paging.start_after)) -
                                         sorted_names.begin());
  const size_t available = sorted_names.size() - page.begin;
  const size_t take = paging.limit ? std::min(*paging.limit, available) : available;
  page.end = page.begin + take;
  page.remaining = available - take;
  if (page.remaining > 0) page.next = EncodeContinue(std::string(sorted_names[page.end - 1]));
  return page;
}

}  // namespace fleetwave::engine
