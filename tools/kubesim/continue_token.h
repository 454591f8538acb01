// List pagination tokens. A token records where the previous page stopped and when the list
// began; like an etcd-backed API server, a token older than the retained history window is
// rejected with 410 Expired so clients restart the list. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/kubesim/clock.h"

namespace fleetwave::kubesim {

struct ContinueToken {
  std::uint64_t resource_version = 0;  // of the first page
  std::string start_after;             // "namespace/name" of the last item returned
  TimePoint issued{};                  // simulated time the list began

  std::string Encode() const;
  static std::optional<ContinueToken> Decode(std::string_view text);
  bool ExpiredAt(TimePoint now, Duration window) const { return now - issued > window; }
};

}  // namespace fleetwave::kubesim
