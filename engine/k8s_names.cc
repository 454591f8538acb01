#include "engine/k8s_names.h"

#include <map>
#include <utility>
#include <vector>

namespace fleetwave::engine {
namespace {

// Kubernetes' texts (k8s.io/apimachinery/pkg/util/validation/validation.go, RegexError and
// MaxLenError), byte for byte, the double space after "'my-name'," included.
constexpr const char* kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kDns1035Msg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

constexpr std::size_t kLabelMax = 63;
constexpr std::size_t kSubdomainMax = 253;

bool LowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesLabel(std::string_view v) {
  if (v.empty() || !LowerAlnum(v.front()) || !LowerAlnum(v.back())) return false;
  for (char c : v)
    if (!LowerAlnum(c) && c != '-') return false;
  return true;
}

// label(\.label)*
bool MatchesSubdomain(std::string_view v) {
  if (v.empty()) return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = v.find('.', start);
    if (!MatchesLabel(v.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string MaxLen(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

NameRule NameRuleFor(std::string_view group, std::string_view kind) {
  // The kinds whose validation Kubernetes pins to a stricter rule than the path-segment floor
  // (k8s.io/kubernetes/pkg/apis/*/validation). RBAC kinds and custom resources keep the floor.
  static const std::map<std::pair<std::string_view, std::string_view>, NameRule> kRules = {
      {{"", "Namespace"}, NameRule::kDns1123Label},
      {{"", "Service"}, NameRule::kDns1035Label},
      {{"", "Pod"}, NameRule::kDns1123Subdomain},
      {{"", "PodTemplate"}, NameRule::kDns1123Subdomain},
      {{"", "ConfigMap"}, NameRule::kDns1123Subdomain},
      {{"", "Secret"}, NameRule::kDns1123Subdomain},
      {{"", "ServiceAccount"}, NameRule::kDns1123Subdomain},
      {{"", "Endpoints"}, NameRule::kDns1123Subdomain},
      {{"", "ReplicationController"}, NameRule::kDns1123Subdomain},
      {{"", "Node"}, NameRule::kDns1123Subdomain},
      {{"", "LimitRange"}, NameRule::kDns1123Subdomain},
      {{"", "ResourceQuota"}, NameRule::kDns1123Subdomain},
      {{"", "PersistentVolume"}, NameRule::kDns1123Subdomain},
      {{"", "PersistentVolumeClaim"}, NameRule::kDns1123Subdomain},
      {{"apps", "Deployment"}, NameRule::kDns1123Subdomain},
      {{"apps", "ReplicaSet"}, NameRule::kDns1123Subdomain},
      {{"apps", "StatefulSet"}, NameRule::kDns1123Subdomain},
      {{"apps", "DaemonSet"}, NameRule::kDns1123Subdomain},
      {{"apps", "ControllerRevision"}, NameRule::kDns1123Subdomain},
      {{"batch", "Job"}, NameRule::kDns1123Subdomain},
      {{"batch", "CronJob"}, NameRule::kDns1123Subdomain},
      {{"autoscaling", "HorizontalPodAutoscaler"}, NameRule::kDns1123Subdomain},
      {{"policy", "PodDisruptionBudget"}, NameRule::kDns1123Subdomain},
      {{"networking.k8s.io", "Ingress"}, NameRule::kDns1123Subdomain},
      {{"networking.k8s.io", "IngressClass"}, NameRule::kDns1123Subdomain},
      {{"networking.k8s.io", "NetworkPolicy"}, NameRule::kDns1123Subdomain},
      {{"storage.k8s.io", "StorageClass"}, NameRule::kDns1123Subdomain},
      {{"scheduling.k8s.io", "PriorityClass"}, NameRule::kDns1123Subdomain},
      {{"apiextensions.k8s.io", "CustomResourceDefinition"}, NameRule::kDns1123Subdomain},
      {{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
       NameRule::kDns1123Subdomain},
      {{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
       NameRule::kDns1123Subdomain},
  };
  auto it = kRules.find({group, kind});
  return it == kRules.end() ? NameRule::kPathSegment : it->second;
}

std::string CheckPathSegmentName(std::string_view value) {
  // k8s.io/apimachinery/pkg/api/validation/path.IsValidPathSegmentName
  if (value == ".") return "may not be '.'";
  if (value == "..") return "may not be '..'";
  std::vector<std::string> errs;
  if (value.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (value.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return Join(errs);
}

std::string CheckDns1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelMax) errs.push_back(MaxLen(kLabelMax));
  if (!MatchesLabel(value))
    errs.push_back(MatchesSubdomain(value) ? "must not contain dots" : kLabelMsg);
  return Join(errs);
}

std::string CheckDns1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kSubdomainMax) errs.push_back(MaxLen(kSubdomainMax));
  if (!MatchesSubdomain(value)) errs.push_back(kSubdomainMsg);
  return Join(errs);
}

std::string CheckDns1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelMax) errs.push_back(MaxLen(kLabelMax));
  if (!MatchesLabel(value) || !(value.front() >= 'a' && value.front() <= 'z'))
    errs.push_back(kDns1035Msg);
  return Join(errs);
}

std::string CheckName(NameRule rule, std::string_view value) {
  switch (rule) {
    case NameRule::kDns1123Label:
      return CheckDns1123Label(value);
    case NameRule::kDns1123Subdomain:
      return CheckDns1123Subdomain(value);
    case NameRule::kDns1035Label:
      return CheckDns1035Label(value);
    case NameRule::kPathSegment:
      break;
  }
  return CheckPathSegmentName(value);
}

std::string QuoteExcerpt(std::string_view value) {
  constexpr std::size_t kMax = 80;
  if (value.size() <= kMax) return "\"" + std::string(value) + "\"";
  return "\"" + std::string(value.substr(0, kMax)) + "...\"";
}

std::string NamespaceProblem(std::string_view ns) {
  const std::string why = CheckDns1123Label(ns);
  return why.empty() ? "" : QuoteExcerpt(ns) + " is not a valid namespace: " + why;
}

std::string ObjectNameProblem(std::string_view group, std::string_view kind,
                              std::string_view name) {
  // Every DNS rule is stricter than the path-segment floor, so one check says it all.
  const std::string why = CheckName(NameRuleFor(group, kind), name);
  if (why.empty()) return "";
  return QuoteExcerpt(name) + " is not a valid name for " + std::string(kind) + ": " + why;
}

}  // namespace fleetwave::engine
