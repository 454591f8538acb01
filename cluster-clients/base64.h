// Standard base64 (RFC 4648 §4) over OpenSSL's EVP block coder: kubeconfig `-data` fields,
// HTTP basic auth and the exec plugin's KUBERNETES_EXEC_INFO. One implementation for the
// whole client, so encoding and decoding cannot drift apart. Plain functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fleetwave::clients {

// Encodes with padding, no line breaks.
std::string Base64Encode(std::string_view data);

// Decodes standard base64. Whitespace anywhere is ignored (kubeconfigs wrap long values) and
// missing trailing padding is tolerated; anything else that is not canonical base64 (a
// character outside the alphabet, '=' before the end, more than two '=', a dangling sextet)
// is nullopt. Pinned by base64_test.cc.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace fleetwave::clients
