// Kubernetes' rules for object names and namespaces, checked where names enter fleetwave (the
// ApplicationSet files, `validate`, render) so that no name can leave its cluster, path or
// query once it is pasted into a request path (issue 30). The messages are Kubernetes' own
// (k8s.io/apimachinery/pkg/util/validation and .../api/validation/path), so a user sees what
// `kubectl apply` would have said.
//
// Every check is hand-written (no std::regex: its recursion depth grows with the input) and
// linear in the length of the name.
#pragma once

#include <string>
#include <string_view>

namespace fleetwave::engine {

// Which rule a kind's metadata.name follows on a real API server.
enum class NameRule {
  kPathSegment,       // the floor for every kind: not "." or "..", no "/" or "%"
  kDns1123Subdomain,  // most built-in kinds: [a-z0-9.-], 253 characters
  kDns1123Label,      // Namespace: [a-z0-9-], 63 characters
  kDns1035Label,      // Service: a DNS-1123 label that starts with a letter
};

// The rule Kubernetes applies to names of `kind` in API group `group` ("" = core). Custom
// resources and kinds fleetwave does not know get the path-segment floor, as the API server
// gives custom resources.
NameRule NameRuleFor(std::string_view group, std::string_view kind);

// Each returns "" when `value` is valid, else Kubernetes' message(s), joined by "; ".
std::string CheckPathSegmentName(std::string_view value);
std::string CheckDns1123Label(std::string_view value);
std::string CheckDns1123Subdomain(std::string_view value);
std::string CheckDns1035Label(std::string_view value);
std::string CheckName(NameRule rule, std::string_view value);

// "" when valid, else `"<value>" is not a valid namespace: <rule>`; the value is quoted as a
// short excerpt (a hostile name may be long).
std::string NamespaceProblem(std::string_view ns);
// "" when valid, else `"<value>" is not a valid name for <kind>: <rule>`: the kind's rule,
// at least the path-segment floor.
std::string ObjectNameProblem(std::string_view group, std::string_view kind, std::string_view name);

// `value` in double quotes, cut to at most 80 bytes plus "..." (for messages).
std::string QuoteExcerpt(std::string_view value);

}  // namespace fleetwave::engine
