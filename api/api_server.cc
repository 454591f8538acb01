#include "api/api_server.h"

#include "api/api_routes.h"
#include "api/api_token.h"

namespace fleetwave::api {

namespace {

ApiResponse JsonResponse(int status, const engine::Json& body) {
  ApiResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

engine::Json OrNull(const std::string& text) {
  return text.empty() ? engine::Json() : engine::Json(text);
}

}  // namespace

ApiServer::ApiServer(const actors::StatusBoard& board, ApiCommandHandler handler)
    : board_(board), handler_(std::move(handler)) {}

ApiServer::~ApiServer() { Stop(); }

int ApiServer::port() const { return http_ ? http_->port() : 0; }

std::optional<std::string> ApiServer::Start(const ApiServerOptions& options) {
  if (http_) return "the API server is already running";
  options_ = options;
  tokens_ = std::make_unique<ApiTokenSource>(options_.token_file, options_.token_refresh,
                                             options_.clock, options_.log);
  tokens_->Reload();  // a missing token file is logged now, not at the first mutation
  if (!options_.read_token_file.empty()) {
    read_tokens_ = std::make_unique<ApiTokenSource>(
        options_.read_token_file, options_.token_refresh, options_.clock, options_.log);
    read_tokens_->Reload();
  }
  router_ = std::make_unique<ApiRouter>(board_, *tokens_, handler_, options_.log);
  if (!options_.webhook_secret_file.empty()) {
    webhook_secret_ = std::make_unique<ApiTokenSource>(
        options_.webhook_secret_file, options_.token_refresh, options_.clock, options_.log,
        "every push webhook is refused with 401");
    webhook_secret_->Reload();
    router_->SetWebhookSecret(webhook_secret_.get());
  }
  http_ = std::make_unique<HttpServer>([this](const ApiRequest& r) { return Serve(r); }, &board_);
  HttpServerOptions http = options_;
  if (http.name.empty()) http.name = "api";
  if (auto failed = http_->Start(http)) {
    http_.reset();
    router_.reset();
    tokens_.reset();
    read_tokens_.reset();
    webhook_secret_.reset();
    return failed;
  }
  if (read_tokens_) router_->LogLine("api: reads under /api/ need a token");
  return std::nullopt;
}

void ApiServer::Stop() {
  if (!http_) return;
  http_->Stop();  // no handler runs after this
  http_.reset();
  router_.reset();
  tokens_.reset();
  read_tokens_.reset();
  webhook_secret_.reset();
}

ApiResponse ApiServer::Serve(const ApiRequest& request) const {
  const bool read = request.method == "GET" || request.method == "HEAD";
  // Reads under /api/ need a token when a read token is configured; the mutation token reads
  // too. Mutations are checked by the router.
  if (read_tokens_ && read && request.path.rfind("/api/", 0) == 0) {
    std::optional<std::string_view> token;
    if (request.authorization) token = BearerToken(*request.authorization);
    const bool ok = token && !token->empty() &&
                    (read_tokens_->Check(*token) == ApiTokenSource::Verdict::kAccepted ||
                     tokens_->Check(*token) == ApiTokenSource::Verdict::kAccepted);
    if (!ok) {
      router_->LogLine("api: " + LogSafe(request.method) + " " + LogSafe(request.path) + " from " +
                       request.caller +
                       " refused (401): " + (token ? "wrong read token" : "missing read token"));
      ApiResponse r = ApiError(401, token ? "the bearer token is not valid for reading"
                                          : "reads need Authorization: Bearer <read token>");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"fleetwave\"");
      return r;
    }
  }
  if (request.path == "/api/v1/leader" && read) return LeaderResponse();
  const bool mutation =
      !read && request.path.rfind("/api/v1/", 0) == 0 && request.path != "/api/v1/webhook";
  if (mutation && options_.leader) {
    const LeaderStatus status = options_.leader();
    if (!status.is_leader) {
      router_->LogLine("api: " + LogSafe(request.method) + " " + LogSafe(request.path) + " from " +
                       request.caller + " refused (503): this instance is a standby");
      const std::string leader = status.leader.empty() ? "unknown" : status.leader;
      ApiResponse r = JsonResponse(
          503, engine::Json{{"code", 503},
                            {"message", "this instance (" + status.self +
                                            ") is a standby and changes nothing; send it to "
                                            "the leader (" +
                                            leader + ")"},
                            {"leader", OrNull(status.leader)},
                            {"self", status.self}});
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
  }
  ApiResponse response = router_->Handle(request);
  if (read && options_.leader && request.path.rfind("/api/", 0) == 0) {
    const LeaderStatus status = options_.leader();
    if (!status.is_leader) {
      response.headers.emplace_back(
          "X-Fleetwave-Served-By",
          "standby " + status.self + " (leader " +
              (status.leader.empty() ? std::string("unknown") : status.leader) + "), shared state");
      response.headers.emplace_back("X-Fleetwave-State-Revision",
                                    std::to_string(status.shared_revision));
    }
  }
  return response;
}

ApiResponse ApiServer::LeaderResponse() const {
  if (!options_.leader) {
    // No leader election: this instance is the only one, and it leads.
    return JsonResponse(200,
                        engine::Json{{"leader", nullptr}, {"self", nullptr}, {"isLeader", true}});
  }
  const LeaderStatus status = options_.leader();
  return JsonResponse(200, engine::Json{{"leader", OrNull(status.leader)},
                                        {"self", status.self},
                                        {"isLeader", status.is_leader}});
}

}  // namespace fleetwave::api
