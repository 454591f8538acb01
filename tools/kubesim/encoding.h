// Small text encodings shared by continue tokens and kubeconfig data fields. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fleetwave::kubesim {

std::string Base64Encode(std::string_view data);
// Standard or URL-safe alphabet, padding optional. nullopt on malformed input.
std::optional<std::string> Base64Decode(std::string_view text);
// Decodes %XX and '+' (as a space) in a query-string component.
std::string UrlDecode(std::string_view text);

}  // namespace fleetwave::kubesim
