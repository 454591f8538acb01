// Shared by the libFuzzer targets in this folder: the input as text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fleetwave::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace fleetwave::fuzz
