// A mutation the HTTP API accepted (authenticated, well-formed, naming an object on the board),
// handed to the daemon's command handler. The handler runs on an HTTP thread: it asks the actor
// that carries the command out and waits for its answer a bounded time (issue 31: the answer is
// what will happen, never a guess), and its result becomes the response.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/operator_command.h"

namespace fleetwave::api {

struct ApiCommand {
  // "sync" | "skip" (Applications), "pause" | "resume" | "abort" | "rollback" | "delete" (sets),
  // "refresh" (every set; target empty)
  std::string kind;
  std::string target;  // the Application's or ApplicationSet's name
  // sync: the revision asked for, if any; rollback: the body's "to", the revision every app
  // returns to (none: each app's last healthy revisions).
  std::optional<std::string> revision;
  std::string caller;                 // the remote address, "ip:port" or "[ip6]:port"
  std::optional<std::string> reason;  // skip: the operator's reason (required)
  // webhook (a verified push, engine/webhook.h): the pushed repository's URLs and ref.
  std::vector<std::string> repo_urls;
  std::string ref;
  std::string default_branch;
};

struct ApiCommandResult {
  int http_status = 202;  // 202 when accepted; 404/409/503... when refused
  std::string message;
};

// The status an actor's answer is given: accepted 202, unchanged 200 (nothing to do), invalid
// 400, not found 404, conflict 409, unavailable (not now) 503.
int HttpStatusOf(engine::CommandOutcome outcome);

using ApiCommandHandler = std::function<ApiCommandResult(const ApiCommand&)>;

}  // namespace fleetwave::api
