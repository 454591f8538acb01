#include "tools/kubesim/continue_token.h"

#include <nlohmann/json.hpp>

#include "tools/kubesim/encoding.h"

namespace fleetwave::kubesim {

std::string ContinueToken::Encode() const {
  nlohmann::json j = {{"v", "meta.k8s.io/v1"},
                      {"rv", resource_version},
                      {"start", start_after},
                      {"t", issued.time_since_epoch().count()}};
  return Base64Encode(j.dump());
}

std::optional<ContinueToken> ContinueToken::Decode(std::string_view text) {
  auto raw = Base64Decode(text);
  if (!raw) return std::nullopt;
  auto j = nlohmann::json::parse(*raw, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("rv") || !j["rv"].is_number_unsigned() ||
      !j.contains("start") || !j["start"].is_string() || !j.contains("t") ||
      !j["t"].is_number_integer())
    return std::nullopt;
  ContinueToken t;
  t.resource_version = j["rv"].get<std::uint64_t>();
  t.start_after = j["start"].get<std::string>();
  t.issued = TimePoint(Duration(j["t"].get<long long>()));
  return t;
}

}  // namespace fleetwave::kubesim
