// A mutation the HTTP API accepted (authenticated, well-formed, naming an object on the board),
// handed to the daemon's command handler. The handler runs on an HTTP thread: it must not block
// (it checks the board and forwards a message to the owning actor), and its result becomes the
// response.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace fleetwave::api {

struct ApiCommand {
  // "sync" | "skip" (Applications), "pause" | "resume" | "delete" (sets), "refresh" (every set;
  // target empty)
  std::string kind;
  std::string target;                   // the Application's or ApplicationSet's name
  std::optional<std::string> revision;  // sync: the revision asked for, if any
  std::string caller;                   // the remote address, "ip:port" or "[ip6]:port"
  std::optional<std::string> reason;    // skip: the operator's reason (required)
};

struct ApiCommandResult {
  int http_status = 202;  // 202 when accepted; 404/409/503... when refused
  std::string message;
};

using ApiCommandHandler = std::function<ApiCommandResult(const ApiCommand&)>;

}  // namespace fleetwave::api
