// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the hash a Secret's values
// are compared by, so no value is ever kept, and a short one cannot be guessed from its hash
// as cheaply as from a 64-bit checksum. Pure.
#pragma once

#include <string>
#include <string_view>

namespace fleetwave::engine {

std::string Sha256Hex(std::string_view bytes);

}  // namespace fleetwave::engine
