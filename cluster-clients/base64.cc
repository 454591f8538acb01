#include "cluster-clients/base64.h"

#include <openssl/evp.h>

namespace fleetwave::clients {
namespace {

bool InAlphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

std::string Base64Encode(std::string_view data) {
  if (data.empty()) return "";
  // EVP_EncodeBlock writes 4 bytes per started 3-byte group plus a terminating NUL.
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  // EVP_DecodeBlock is lenient where we must not be: it reads '=' anywhere as zero bits and
  // skips leading whitespace only. So the input is normalised and validated here first.
  std::string clean;
  clean.reserve(text.size() + 2);
  std::size_t padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
    } else if (padding > 0 || !InAlphabet(c)) {
      return std::nullopt;  // data after padding, or not base64 at all
    }
    clean.push_back(c);
  }
  if (padding > 2) return std::nullopt;
  // Tolerate unpadded input ("aGk" for "hi") by restoring the padding EVP needs.
  while (clean.size() % 4 != 0 && padding < 2) {
    clean.push_back('=');
    ++padding;
  }
  if (clean.size() % 4 != 0) return std::nullopt;  // a single dangling character
  if (clean.empty()) return std::string();
  std::string out(clean.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(clean.data()),
                                static_cast<int>(clean.size()));
  // EVP_DecodeBlock counts the zero bytes the padding stands for: drop them.
  if (n < 0 || static_cast<std::size_t>(n) < padding) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

}  // namespace fleetwave::clients
