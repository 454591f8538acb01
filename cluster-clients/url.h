// Building request URLs from values that are not ours (names and namespaces from manifests,
// selectors, continue tokens and resource versions from the server): every path segment is
// percent-encoded and every query string is built from typed parameters here, so no value can
// add a segment, walk up with "..", start a query or cut the URL with '#' (issue 30: a namespace
// "x/../../sim-0/..." once sent an apply to another cluster's endpoint). No other code in
// cluster-clients concatenates a value into a URL.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetwave::clients {

// Percent-encodes every byte outside RFC 3986's unreserved set (ALPHA DIGIT - . _ ~), so the
// result is one path segment or one query key or value. A segment that is "." or ".." is
// encoded whole ("%2E", "%2E%2E"): RFC 3986 clients and servers remove dot segments.
std::string EscapeSegment(std::string_view value);
std::string EscapeQueryValue(std::string_view value);

// "" when `value` may stand as a name or namespace segment, else why not: it is empty, "."
// or "..". Every other value is made harmless by EscapeSegment; these three would address
// another resource (the collection, or its parent) however they are encoded.
std::string SegmentProblem(std::string_view value);

// A query string built from typed parameters: "?k=v&k2=v2", keys and values escaped.
class Query {
 public:
  Query& Add(std::string_view key, std::string_view value);
  Query& Add(std::string_view key, long long value) { return Add(key, std::to_string(value)); }
  // Adds `key=value` when `value` is not empty.
  Query& AddIfSet(std::string_view key, std::string_view value) {
    return value.empty() ? *this : Add(key, value);
  }
  std::string str() const;  // "" when no parameter was added

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

}  // namespace fleetwave::clients
