// The HTTP API's routes as a function from a parsed request to a response, apart from the
// server that carries them (api_server.h), so every rule here is one readable table:
//
//   GET  /                                   the web view (web_view.h): one HTML page
//   GET  /healthz                            200 "ok" while the process serves at all
//   GET  /readyz                             200 when config and store are loaded, else 503 + why
//   GET  /api/v1/applicationsets[/NAME]      the board's sets (list: items sorted by name, plus
//                                            the input files' load errors)
//   GET  /api/v1/applications[/NAME]         the board's Argo-shaped Applications
//   GET  /api/v1/clusters                    name, server, up, synced per cluster
//   GET  /api/v1/workloads                   each watched workload's progress deadline state
//   GET  <any list above>?watch=1            a watch stream of that list (api_watch.h): the
//                                            router answers with `watch` set, the server streams
//   GET  /api/v1/applications?FILTERS        filtered and paged (fleet_routes.h): appset, step,
//                                            health, sync, rollout, status, cluster,
//                                            labelSelector, search, limit, continue
//   GET  /api/v1/rows?FILTERS[&watch=1]      one small row per app, filtered; a filtered watch
//   GET  /api/v1/summaries[?appset=][&watch=1]  per set: counts per step, strip, attention
//   GET  /api/v1/applicationsets/NAME/summary   one set's summary
//   POST /api/v1/applications/NAME/sync      bearer token; optional {"revision": "..."}
//   DELETE /api/v1/applicationsets/NAME      bearer token; a set pending deletion is deleted
//                                            now (202); one a file still defines: 409
//   POST /api/v1/refresh                     bearer token; reconcile every set now
//   POST /api/v1/webhook                     a push webhook, authenticated by its signature
//                                            (no bearer token; engine/webhook.h): the sets
//                                            following the pushed repository reconcile now;
//                                            rate-limited, the body bounded by the server
//
// HEAD is served wherever GET is. Unknown paths are 404 and known paths with another method 405
// (with Allow); errors are JSON {"code": N, "message": "..."}. Every request is answered: a
// throwing handler or command callback becomes a 500, never a crash.
//
// Thread-safety: Handle() is const and may run on many threads at once; the board, the token
// source and the command handler must be thread-safe and outlive the router.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/status_board.h"
#include "api/api_command.h"
#include "api/api_token.h"

namespace fleetwave::api {

struct ApiRequest {
  std::string method;
  std::string path;  // URL-decoded, without the query
  std::string query;
  std::optional<std::string> authorization;  // the Authorization header, if sent
  // The X-* headers (push webhooks' event and signature), names in lower case.
  std::map<std::string, std::string> headers;
  std::string body;
  std::string caller;  // "ip:port" or "[ip6]:port"
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides type and length
  // Non-empty: instead of `body`, stream this StatusBoard collection's watch (api_watch.h).
  std::string watch;
  // Set: the watch streams only the objects this accepts (an object that stops matching is
  // sent as DELETED, one that starts matching as ADDED, as Kubernetes filtered watches do).
  std::shared_ptr<const std::function<bool(const engine::Json&)>> watch_filter;
};

// Whether the query asks for a watch stream: watch=1 or watch=true (ApiWatchTest.WatchQuery).
bool WantsWatch(const std::string& query);

// The JSON error body every refusal carries: {"code": status, "message": message}.
ApiResponse ApiError(int status, const std::string& message);

class ApiRouter {
 public:
  using Log = std::function<void(const std::string&)>;

  // `handler` may be empty: mutations are then answered 503. `log` nullptr = stderr.
  ApiRouter(const actors::StatusBoard& board, ApiTokenSource& tokens, ApiCommandHandler handler,
            Log log);

  ApiResponse Handle(const ApiRequest& request) const noexcept;

  void LogLine(const std::string& line) const;

  // The webhook.secretFile's source (re-read when it changes); must outlive the router.
  void SetWebhookSecret(ApiTokenSource* secret) { webhook_secret_ = secret; }

 private:
  ApiResponse Route(const ApiRequest& request) const;
  // An authenticated mutation of an Application (sync, skip) or an ApplicationSet (pause,
  // resume, abort, rollback): token first, then the body, then the target must exist, then the
  // handler.
  ApiResponse Mutate(const ApiRequest& request, const std::string& kind,
                     const std::string& target) const;

  // POST /api/v1/webhook: the signature first, then the push goes to the handler.
  ApiResponse Webhook(const ApiRequest& request) const;

  const actors::StatusBoard& board_;
  ApiTokenSource& tokens_;
  ApiTokenSource* webhook_secret_ = nullptr;  // nullptr: no webhook.secretFile configured
  // The webhook's rate limit: a bucket of kWebhookBurst requests refilled kWebhookPerSecond.
  mutable std::mutex webhook_mu_;
  mutable double webhook_tokens_ = 0;
  mutable std::chrono::steady_clock::time_point webhook_refilled_{};
  ApiCommandHandler handler_;
  Log log_;
};

// Replaces control characters (and so line breaks) in text a client chose before it goes into a
// log line, so a request cannot forge log lines.
std::string LogSafe(const std::string& text);

}  // namespace fleetwave::api
