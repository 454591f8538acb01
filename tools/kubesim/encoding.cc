#include "tools/kubesim/encoding.h"

#include <openssl/evp.h>

#include "engine/url_query.h"

namespace fleetwave::kubesim {

// base64 is OpenSSL's (already linked for TLS) rather than a third hand-written copy.
std::string Base64Encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');  // + the NUL EVP writes
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  // EVP_DecodeBlock takes the standard alphabet in whole padded quanta: map the URL-safe
  // alphabet onto it, drop whatever padding came, and pad again.
  std::string in;
  in.reserve(text.size() + 3);
  for (char c : text) {
    if (c == '=') break;
    if (c == '-') c = '+';
    if (c == '_') c = '/';
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/';
    if (!ok) return std::nullopt;
    in += c;
  }
  if (in.size() % 4 == 1) return std::nullopt;  // no whole byte in the last quantum
  const std::size_t pad = (4 - in.size() % 4) % 4;
  in.append(pad, '=');
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - pad);  // EVP counts the padding as zero bytes
  return out;
}

std::string UrlDecode(std::string_view text) { return engine::PercentDecode(text, true); }

}  // namespace fleetwave::kubesim
