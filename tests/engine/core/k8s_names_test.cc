// Kubernetes' name rules (engine/k8s_names.h), as tables: each row a value, the rule and what
// Kubernetes says about it (k8s.io/apimachinery/pkg/util/validation, .../api/validation/path).
#include "engine/k8s_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace fleetwave::engine {
namespace {

using ::testing::HasSubstr;

struct Row {
  std::string value;
  bool valid;
  std::string says;  // a substring of the message when invalid
};

constexpr const char* kLabel = "a lowercase RFC 1123 label must consist of lower case";
constexpr const char* kSubdomain = "a lowercase RFC 1123 subdomain must consist of lower case";
constexpr const char* k1035 = "a DNS-1035 label must consist of lower case";

void Expect(const std::vector<Row>& rows, std::string (*check)(std::string_view)) {
  for (const Row& r : rows) {
    const std::string got = check(r.value);
    if (r.valid) {
      EXPECT_EQ(got, "") << "value " << r.value;
    } else {
      EXPECT_THAT(got, HasSubstr(r.says)) << "value " << r.value;
    }
  }
}

TEST(K8sNames, Dns1123Label) {
  Expect(
      {
          {"a", true, ""},
          {"my-name", true, ""},
          {"123-abc", true, ""},
          {std::string(63, 'a'), true, ""},
          {std::string(64, 'a'), false, "must be no more than 63 characters"},
          {"", false, kLabel},
          {"-a", false, kLabel},
          {"a-", false, kLabel},
          {"A", false, kLabel},
          {"a_b", false, kLabel},
          {"a.b", false, "must not contain dots"},
          {"x/../../../../../../sim-0/apis/apps/v1/namespaces/default", false, kLabel},
          {"x?dryRun=All#", false, kLabel},
          {"x%2F..", false, kLabel},
          {"..", false, kLabel},
      },
      &CheckDns1123Label);
}

TEST(K8sNames, LabelMessageIsKubernetesOwn) {
  EXPECT_EQ(CheckDns1123Label("x?"),
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
            "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
            "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  EXPECT_EQ(CheckDns1123Label(std::string(64, '-')),
            "must be no more than 63 characters; " + CheckDns1123Label("-"));
}

TEST(K8sNames, Dns1123Subdomain) {
  Expect(
      {
          {"example.com", true, ""},
          {"a.b-c.d", true, ""},
          {std::string(253, 'a'), true, ""},
          {std::string(254, 'a'), false, "must be no more than 253 characters"},
          {"", false, kSubdomain},
          {".a", false, kSubdomain},
          {"a.", false, kSubdomain},
          {"a..b", false, kSubdomain},
          {"a.-b", false, kSubdomain},
          {"Upper", false, kSubdomain},
          {"../../../../api/v1/namespaces/kube-system", false, kSubdomain},
          {".", false, kSubdomain},
      },
      &CheckDns1123Subdomain);
}

TEST(K8sNames, Dns1035Label) {
  Expect(
      {
          {"my-name", true, ""},
          {"abc-123", true, ""},
          {"123-abc", false, k1035},
          {"a.b", false, k1035},
          {std::string(64, 'a'), false, "must be no more than 63 characters"},
      },
      &CheckDns1035Label);
}

TEST(K8sNames, PathSegment) {
  Expect(
      {
          {"Any_Thing:at all", true, ""},
          {"...", true, ""},
          {".", false, "may not be '.'"},
          {"..", false, "may not be '..'"},
          {"a/b", false, "may not contain '/'"},
          {"a%2Fb", false, "may not contain '%'"},
          {"a/%", false, "may not contain '/'; may not contain '%'"},
      },
      &CheckPathSegmentName);
}

TEST(K8sNames, RulePerKind) {
  EXPECT_EQ(NameRuleFor("", "Namespace"), NameRule::kDns1123Label);
  EXPECT_EQ(NameRuleFor("", "Service"), NameRule::kDns1035Label);
  EXPECT_EQ(NameRuleFor("", "ConfigMap"), NameRule::kDns1123Subdomain);
  EXPECT_EQ(NameRuleFor("apps", "Deployment"), NameRule::kDns1123Subdomain);
  EXPECT_EQ(NameRuleFor("apiextensions.k8s.io", "CustomResourceDefinition"),
            NameRule::kDns1123Subdomain);
  // RBAC and custom resources: the path-segment floor, as on a real API server.
  EXPECT_EQ(NameRuleFor("rbac.authorization.k8s.io", "ClusterRole"), NameRule::kPathSegment);
  EXPECT_EQ(NameRuleFor("apps.kruise.io", "CloneSet"), NameRule::kPathSegment);
  EXPECT_EQ(NameRuleFor("example.com", "Deployment"), NameRule::kPathSegment);
}

TEST(K8sNames, Problems) {
  EXPECT_EQ(NamespaceProblem("team-a"), "");
  EXPECT_THAT(NamespaceProblem("x/../.."),
              HasSubstr("\"x/../..\" is not a valid namespace: " + std::string(kLabel)));
  EXPECT_EQ(ObjectNameProblem("apps", "Deployment", "web.v2"), "");
  EXPECT_THAT(
      ObjectNameProblem("apps", "Deployment", "../../api"),
      HasSubstr("\"../../api\" is not a valid name for Deployment: " + std::string(kSubdomain)));
  EXPECT_EQ(ObjectNameProblem("rbac.authorization.k8s.io", "ClusterRole", "system:reader"), "");
  EXPECT_EQ(ObjectNameProblem("example.com", "Widget", ".."),
            "\"..\" is not a valid name for Widget: may not be '..'");
  EXPECT_THAT(ObjectNameProblem("example.com", "Widget", "a%2Fb"),
              HasSubstr("may not contain '%'"));
  EXPECT_THAT(ObjectNameProblem("", "Namespace", "a.b"), HasSubstr("must not contain dots"));
}

TEST(K8sNames, LongValuesAreQuotedAsAnExcerpt) {
  const std::string huge(1 << 20, '/');
  const std::string p = NamespaceProblem(huge);
  EXPECT_LT(p.size(), 1000u);
  EXPECT_THAT(p, HasSubstr("...\" is not a valid namespace"));
}

}  // namespace
}  // namespace fleetwave::engine
