#include "api/api_routes.h"

#include <algorithm>
#include <exception>
#include <iostream>
#include <string_view>

#include "api/fleet_routes.h"
#include "api/web_view.h"
#include "engine/webhook.h"

namespace fleetwave::api {
namespace {

using engine::Json;

// Serialises without throwing on text that is not UTF-8 (a file error may quote such bytes):
// the bad bytes become U+FFFD instead of a 500.
std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiResponse JsonResponse(int status, std::string body) {
  ApiResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

ApiResponse Text(int status, std::string body) {
  ApiResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

// `{"apiVersion": ..., "kind": ..., "items": [...]}` built from the snapshots' text, so a list of
// thousands of Applications is never copied into one big JSON value first.
std::string ListBody(const std::string& kind,
                     const std::vector<actors::StatusBoard::JsonPtr>& items,
                     const std::string& extra_fields = "") {
  std::string body = "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":" + Dump(kind) + ",";
  body += extra_fields;
  body += "\"items\":[";
  bool first = true;
  for (const auto& item : items) {
    if (!item) continue;
    if (!first) body += ",";
    first = false;
    body += Dump(*item);
  }
  body += "]}";
  return body;
}

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  if (path.empty() || path.front() != '/') return out;
  path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    out.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// nlohmann builds and destroys values recursively: a body nested thousands deep would exhaust
// the stack, so depth is checked on the raw text first (ApiServerTest.SyncRefusals).
bool NestingWithin(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

bool HasControl(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

struct MutationBody {
  std::optional<std::string> revision;
  std::optional<std::string> reason;
  std::string error;  // non-empty: the 400 message
};

// The fields each mutation accepts: sync {revision?}, skip {reason} (required), rollback
// {to?} (issue 29: the revision to return to, read into `revision`), pause, resume and abort
// nothing.
MutationBody ParseMutationBody(const std::string& kind, const std::string& body) {
  MutationBody out;
  const std::string allowed = kind == "sync"       ? "revision"
                              : kind == "skip"     ? "reason"
                              : kind == "rollback" ? "to"
                                                   : "";
  const std::string example = kind == "sync"       ? "{\"revision\": \"main\"}"
                              : kind == "skip"     ? "{\"reason\": \"cluster is being rebuilt\"}"
                              : kind == "rollback" ? "{\"to\": \"v1.4.2\"}"
                                                   : "{}";
  if (!IsBlank(body)) {
    if (!NestingWithin(body, 32)) {
      out.error = "request body nests too deeply";
      return out;
    }
    const Json doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) {
      out.error = "request body must be a JSON object, e.g. " + example;
      return out;
    }
    for (const auto& [key, value] : doc.items()) {
      if (key != allowed) {
        out.error = "unknown field \"" + key + "\" in request body" +
                    (allowed.empty() ? " (none allowed)" : " (allowed: " + allowed + ")");
        return out;
      }
      if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
        out.error = key + " must be a non-empty string";
        return out;
      }
      const std::string& text = value.get_ref<const std::string&>();
      if (text.size() > 1024 || HasControl(text)) {
        out.error = key + " must be at most 1024 characters without control characters";
        return out;
      }
      (key == "reason" ? out.reason : out.revision) = text;
    }
  }
  if (kind == "skip" && !out.reason) {
    out.error = "a skip needs a reason, e.g. " + example;
  }
  return out;
}

ApiResponse MethodNotAllowed(const ApiRequest& request, const std::string& allow) {
  ApiResponse r = ApiError(405, "method " + request.method + " is not allowed on " + request.path +
                                    " (allowed: " + allow + ")");
  r.headers.emplace_back("Allow", allow);
  return r;
}

bool IsGet(const ApiRequest& r) { return r.method == "GET" || r.method == "HEAD"; }

// A list route's answer to ?watch=1: the server streams the collection (ApiWatchTest.*).
ApiResponse WatchOf(const std::string& collection) {
  ApiResponse r;
  r.content_type = "application/json-lines";
  r.watch = collection;
  return r;
}

}  // namespace

int HttpStatusOf(engine::CommandOutcome outcome) {
  switch (outcome) {
    case engine::CommandOutcome::kAccepted:
      return 202;
    case engine::CommandOutcome::kUnchanged:
      return 200;
    case engine::CommandOutcome::kInvalid:
      return 400;
    case engine::CommandOutcome::kNotFound:
      return 404;
    case engine::CommandOutcome::kConflict:
      return 409;
    case engine::CommandOutcome::kUnavailable:
      return 503;
  }
  return 500;
}

ApiResponse ApiError(int status, const std::string& message) {
  return JsonResponse(status, Dump(Json{{"code", status}, {"message", message}}));
}

bool WantsWatch(const std::string& query) {
  std::string_view q = query;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    const std::string_view pair = q.substr(0, amp);
    if (pair == "watch=1" || pair == "watch=true") return true;
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return false;
}

std::string LogSafe(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

ApiRouter::ApiRouter(const actors::StatusBoard& board, ApiTokenSource& tokens,
                     ApiCommandHandler handler, Log log)
    : board_(board), tokens_(tokens), handler_(std::move(handler)), log_(std::move(log)) {}

void ApiRouter::LogLine(const std::string& line) const {
  if (log_) {
    log_(line);
  } else {
    std::cerr << line << "\n";
  }
}

ApiResponse ApiRouter::Handle(const ApiRequest& request) const noexcept {
  // The catch-all: a bug in a handler costs one request a 500, never the process
  // (ApiServerTest.ThrowingCommandHandlerIs500AndServerKeepsServing).
  try {
    return Route(request);
  } catch (const std::exception& e) {
    try {
      LogLine("api: internal error on " + LogSafe(request.method) + " " + LogSafe(request.path) +
              ": " + LogSafe(e.what()));
    } catch (...) {
    }
  } catch (...) {
    try {
      LogLine("api: internal error on " + LogSafe(request.method) + " " + LogSafe(request.path));
    } catch (...) {
    }
  }
  ApiResponse r;
  r.status = 500;
  r.body = "{\"code\":500,\"message\":\"internal error (see the daemon's log)\"}";
  return r;
}

ApiResponse ApiRouter::Route(const ApiRequest& request) const {
  const std::vector<std::string> s = Segments(request.path);
  const size_t n = s.size();
  const bool api = n >= 3 && s[0] == "api" && s[1] == "v1";

  // The web view: one page, its headers pinned by WebViewTest.RootServesThePage.
  if (n == 1 && s[0].empty()) {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    const WebViewPage& page = WebView();
    ApiResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.body = page.html;
    r.headers = {{"Content-Security-Policy", page.content_security_policy},
                 {"X-Content-Type-Options", "nosniff"},
                 {"Referrer-Policy", "no-referrer"}};
    return r;
  }

  if (n == 1 && (s[0] == "healthz" || s[0] == "readyz")) {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    if (s[0] == "healthz") return Text(200, "ok\n");
    const actors::Readiness ready = board_.readiness();
    if (ready.ready) return Text(200, "ok\n");
    return Text(503, "not ready: " + ready.reason + "\n");
  }

  // An immediate reconcile of every set: new commits are seen now, not at the next poll
  // (ApiRefreshTest.*).
  if (api && n == 3 && s[2] == "refresh") {
    if (request.method != "POST") return MethodNotAllowed(request, "POST");
    return Mutate(request, "refresh", "");
  }
  if (api && n == 3 && s[2] == "webhook") {
    if (request.method != "POST") return MethodNotAllowed(request, "POST");
    return Webhook(request);
  }

  if (api && s[2] == "applicationsets" && n == 5 && !s[3].empty() &&
      (s[4] == "pause" || s[4] == "resume" || s[4] == "abort" || s[4] == "rollback")) {
    if (request.method != "POST") return MethodNotAllowed(request, "POST");
    return Mutate(request, s[4], s[3]);
  }

  if (api && s[2] == "applicationsets" && n == 5 && !s[3].empty() && s[4] == "summary") {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    return SummaryRoute(board_, s[3]);
  }

  if (api && n == 3 && (s[2] == "rows" || s[2] == "summaries")) {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    return s[2] == "rows" ? RowsRoute(board_, request) : SummariesRoute(board_, request);
  }

  if (api && s[2] == "applicationsets" && (n == 3 || (n == 4 && !s[3].empty()))) {
    // DELETE of one set: authenticated like every mutation; the command handler decides
    // (202 for a set pending deletion, 409 while a file still defines it).
    if (n == 4 && request.method == "DELETE") return Mutate(request, "delete", s[3]);
    if (!IsGet(request)) {
      return MethodNotAllowed(request, n == 4 ? "GET, HEAD, DELETE" : "GET, HEAD");
    }
    if (n == 4) {
      auto set = board_.AppSet(s[3]);
      if (!set) return ApiError(404, "applicationset \"" + s[3] + "\" not found");
      return JsonResponse(200, Dump(*set));
    }
    if (WantsWatch(request.query)) return WatchOf(actors::StatusBoard::kAppSets);
    // Input files that failed to load are listed beside the sets: a set whose file is broken
    // may have no entry of its own to carry the error.
    Json errors = Json::array();
    for (const auto& [file, error] : board_.Files()) {
      if (error) errors.push_back(Json{{"file", file}, {"message", *error}});
    }
    return JsonResponse(
        200, ListBody("ApplicationSetList", board_.AppSets(), "\"errors\":" + Dump(errors) + ","));
  }

  if (api && s[2] == "applications" && (n == 3 || (n >= 4 && !s[3].empty()))) {
    if (n == 5 && (s[4] == "sync" || s[4] == "skip")) {
      if (request.method != "POST") return MethodNotAllowed(request, "POST");
      return Mutate(request, s[4], s[3]);
    }
    if (n > 4) return ApiError(404, "no route for " + request.path);
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    if (n == 4) {
      auto app = board_.Application(s[3]);
      if (!app) return ApiError(404, "application \"" + s[3] + "\" not found");
      return JsonResponse(200, Dump(*app));
    }
    if (HasFleetQuery(request.query)) return FilteredApplications(board_, request);
    if (WantsWatch(request.query)) return WatchOf(actors::StatusBoard::kApplications);
    return JsonResponse(200, ListBody("ApplicationList", board_.Applications()));
  }

  if (api && n == 3 && s[2] == "clusters") {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    if (WantsWatch(request.query)) return WatchOf(actors::StatusBoard::kClusters);
    Json items = Json::array();
    for (const actors::ClusterStatus& c : board_.Clusters()) items.push_back(ClusterJson(c));
    return JsonResponse(200, Dump(Json{{"items", std::move(items)}}));
  }

  // Progress deadlines per workload (workload_actor.h, WorkloadItem), sorted by cluster,
  // namespace, kind and name (WorkloadApiTest.WorkloadsAreListedInOrder).
  if (api && n == 3 && s[2] == "workloads") {
    if (!IsGet(request)) return MethodNotAllowed(request, "GET, HEAD");
    if (WantsWatch(request.query)) return WatchOf(actors::StatusBoard::kWorkloads);
    Json items = Json::array();
    for (const auto& w : board_.Workloads()) items.push_back(*w);
    return JsonResponse(200, Dump(Json{{"items", std::move(items)}}));
  }

  return ApiError(404, "no route for " + request.path);
}

ApiResponse ApiRouter::Webhook(const ApiRequest& request) const {
  constexpr double kWebhookBurst = 20;
  constexpr double kWebhookPerSecond = 5;
  auto answer = [&](ApiResponse r, const std::string& why) {
    LogLine("api: webhook from " + request.caller + ": " + std::to_string(r.status) + " " +
            LogSafe(why));
    return r;
  };
  {
    // Checking a signature costs a hash of the body: a flood is refused before it.
    std::lock_guard<std::mutex> lock(webhook_mu_);
    const auto now = std::chrono::steady_clock::now();
    if (webhook_refilled_ == std::chrono::steady_clock::time_point{}) {
      webhook_tokens_ = kWebhookBurst;
    } else {
      const double seconds = std::chrono::duration<double>(now - webhook_refilled_).count();
      webhook_tokens_ = std::min(kWebhookBurst, webhook_tokens_ + seconds * kWebhookPerSecond);
    }
    webhook_refilled_ = now;
    if (webhook_tokens_ < 1) {
      ApiResponse r = ApiError(429, "too many webhook requests; try again in a second");
      r.headers.emplace_back("Retry-After", "1");
      return answer(std::move(r), "rate limited");
    }
    webhook_tokens_ -= 1;
  }
  if (webhook_secret_ == nullptr) {
    return answer(ApiError(503,
                           "push webhooks are not configured (webhook.secretFile in "
                           "fleetwave.yaml)"),
                  "no webhook.secretFile");
  }
  engine::WebhookVerdict verdict;
  const ApiTokenSource::Verdict checked = webhook_secret_->CheckWith([&](std::string_view secret) {
    verdict = engine::CheckWebhook(request.headers, request.body, secret);
    return verdict.status != 401;
  });
  if (checked == ApiTokenSource::Verdict::kUnavailable) {
    return answer(ApiError(503, "the webhook secret file cannot be read (see the daemon's log)"),
                  "webhook secret unavailable");
  }
  if (verdict.status != 200) {
    ApiResponse r = ApiError(verdict.status, verdict.message);
    if (verdict.status == 202) r.body = Dump(Json{{"message", verdict.message}});
    return answer(std::move(r), verdict.message);
  }
  if (!handler_) {
    return answer(ApiError(503, "this server accepts no commands"), "no command handler");
  }
  ApiCommand command;
  command.kind = "webhook";
  command.caller = request.caller;
  command.repo_urls = verdict.push->repo_urls;
  command.ref = verdict.push->ref;
  command.default_branch = verdict.push->default_branch;
  ApiCommandResult result = handler_(command);
  int status = result.http_status;
  if (status < 200 || status > 599) status = 500;
  ApiResponse r = status < 300 ? JsonResponse(status, Dump(Json{{"message", result.message}}))
                               : ApiError(status, result.message);
  return answer(std::move(r), verdict.message + ": " + result.message);
}

ApiResponse ApiRouter::Mutate(const ApiRequest& request, const std::string& kind,
                              const std::string& target) const {
  const bool on_set = kind == "pause" || kind == "resume" || kind == "abort" ||
                      kind == "rollback" || kind == "delete";
  const std::string noun = on_set ? "applicationset" : "application";
  const bool every_set = kind == "refresh";  // no target: it concerns every set
  const std::string what = (every_set ? kind + " of every applicationset"
                                      : kind + " of " + noun + " \"" + LogSafe(target) + "\"") +
                           " from " + request.caller;
  auto refuse = [&](ApiResponse r, const std::string& why) {
    LogLine("api: " + what + " refused (" + std::to_string(r.status) + "): " + why);
    return r;
  };

  // Authentication comes first, so a caller without the token learns nothing, not even whether
  // the application exists (ApiAuthTest.*).
  std::optional<std::string_view> token;
  if (request.authorization) token = BearerToken(*request.authorization);
  std::string auth_error;
  if (!token) {
    auth_error = request.authorization ? "Authorization is not a bearer token"
                                       : "missing Authorization: Bearer token";
  } else {
    switch (tokens_.Check(*token)) {
      case ApiTokenSource::Verdict::kAccepted:
        break;
      case ApiTokenSource::Verdict::kWrong:
        auth_error = "wrong bearer token";
        break;
      case ApiTokenSource::Verdict::kUnavailable:
        auth_error = "no API token is configured or readable (see the daemon's log)";
        break;
    }
  }
  if (!auth_error.empty()) {
    ApiResponse r = ApiError(401, auth_error);
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"fleetwave\"");
    return refuse(std::move(r), auth_error);
  }

  MutationBody body = ParseMutationBody(kind, request.body);
  if (!body.error.empty()) return refuse(ApiError(400, body.error), body.error);
  const bool exists = every_set || (on_set ? board_.AppSet(target) != nullptr
                                           : board_.ApplicationOwner(target).has_value());
  if (!exists) {
    return refuse(ApiError(404, noun + " \"" + target + "\" not found"), "not found");
  }
  if (!handler_) {
    return refuse(ApiError(503, "this server accepts no commands"), "no command handler");
  }

  ApiCommand command{kind, target, body.revision, request.caller, body.reason, {}, {}, {}};
  ApiCommandResult result = handler_(command);
  int status = result.http_status;
  if (status < 200 || status > 599) status = 500;
  const std::string to_revision = kind == "rollback" ? " to revision " : " at revision ";
  LogLine("api: " + what + (body.revision ? to_revision + LogSafe(*body.revision) : "") +
          (body.reason ? " (reason: " + LogSafe(*body.reason) + ")" : "") + ": " +
          std::to_string(status) + " " + LogSafe(result.message));
  return JsonResponse(status, Dump(Json{{"code", status}, {"message", result.message}}));
}

}  // namespace fleetwave::api
