#include "cluster-clients/url.h"

namespace fleetwave::clients {
namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

std::string Escape(std::string_view value, bool dots_too) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (Unreserved(c) && !(dots_too && c == '.')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

std::string EscapeSegment(std::string_view value) {
  return Escape(value, value == "." || value == "..");
}

std::string EscapeQueryValue(std::string_view value) { return Escape(value, false); }

std::string SegmentProblem(std::string_view value) {
  if (value.empty()) return "is empty";
  if (value == "." || value == "..") return "may not be '" + std::string(value) + "'";
  return "";
}

Query& Query::Add(std::string_view key, std::string_view value) {
  params_.emplace_back(EscapeQueryValue(key), EscapeQueryValue(value));
  return *this;
}

std::string Query::str() const {
  std::string out;
  for (const auto& [k, v] : params_) out += (out.empty() ? "?" : "&") + k + "=" + v;
  return out;
}

}  // namespace fleetwave::clients
