// What a ClusterClient reports about its traffic, for metrics: each HTTP request attempt and
// each re-opened watch. An interface here, implemented elsewhere (metrics/ adapts it), so this
// folder never depends on the metrics layer.
//
// Thread-safety: called on the transport's loop thread; implementations must be thread-safe
// and fast (no blocking: they run inside the client's event loop).
#pragma once

#include <string>

namespace fleetwave::clients {

class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  // One request attempt ended: `verb` the HTTP method, `code` the HTTP status (0 when no
  // response came back: connection error, timeout), `seconds` from sending to the end.
  // Watches are not requests here (they last minutes by design).
  virtual void OnRequest(const std::string& cluster, const std::string& verb, int code,
                         double seconds) = 0;
  // A watch of `resource` (plural, "deployments") ended or failed and is re-opened.
  virtual void OnWatchRestart(const std::string& cluster, const std::string& resource) = 0;
};

}  // namespace fleetwave::clients
