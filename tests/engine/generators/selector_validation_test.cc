// Selector validation: a selector that could never match (invalid label values, keys,
// operators) is an error naming its path, in cluster selectors and post-selectors alike.
#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::Messages;

struct Case {
  const char* name;
  std::string selector;  // flow YAML of a LabelSelector
  std::vector<std::string> want;
};

class SelectorValidation : public ::testing::TestWithParam<Case> {};

std::string Spec(const std::string& selector) {
  return "spec:\n  generators:\n    - clusters:\n        selector: " + selector +
         "\n    - list: {elements: [{app: a}]}\n      selector: " + selector +
         "\n  template:\n    metadata: {name: x}\n    spec: {project: default, source: {repoURL: "
         "r, path: p}, destination: {server: s, namespace: n}}\n";
}

// Every message is expected twice: once for the cluster selector (line 7, the selector
// starts after 18 characters), once for the post-selector (line 9, after 16), each naming its
// own path. Wanted messages start with the column within the selector's text.
TEST_P(SelectorValidation, IsAnErrorNamingThePath) {
  std::vector<std::string> want;
  const auto at = [](const std::string& w, int line, int indent, const std::string& path) {
    const int col = std::stoi(w.substr(0, w.find(':'))) + indent;
    return "set.yaml:" + std::to_string(line) + ":" + std::to_string(col) + ": " + path +
           w.substr(w.find(':') + 2);
  };
  for (const std::string& w : GetParam().want)
    want.push_back(at(w, 7, 18, "spec.generators[0].clusters.selector."));
  for (const std::string& w : GetParam().want)
    want.push_back(at(w, 9, 16, "spec.generators[1].selector."));
  EXPECT_EQ(Messages(DecodeSpec(Spec(GetParam().selector)).issues), want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, SelectorValidation,
    ::testing::Values(
        Case{"ValidSelectorsPass",
             "{matchLabels: {env: prod, example.com/tier: gold-1, empty: ''}, matchExpressions: "
             "[{key: r, operator: In, values: [a.b, c_d]}, {key: z, operator: Exists}]}",
             {}},
        Case{"StarIsNotALabelValue",
             "{matchLabels: {env: '*'}}",
             {"21: matchLabels.env: invalid label value \"*\": must be empty or at most 63 "
              "characters of [A-Za-z0-9-_.], beginning and ending with an alphanumeric "
              "character"}},
        Case{"SpacesInAValue",
             "{matchExpressions: [{key: env, operator: In, values: [prod eu]}]}",
             {"55: matchExpressions[0].values[0]: invalid label value \"prod eu\": must be empty "
              "or at most 63 characters of [A-Za-z0-9-_.], beginning and ending with an "
              "alphanumeric character"}},
        Case{"ValueOver63Characters",
             "{matchLabels: {env: " + std::string(64, 'a') + "}}",
             {"21: matchLabels.env: invalid label value \"" + std::string(64, 'a') +
              "\": must be empty or at most 63 characters of [A-Za-z0-9-_.], beginning and "
              "ending with an alphanumeric character"}},
        Case{"InvalidKey",
             "{matchLabels: {'bad key': x}}",
             {"16: matchLabels.bad key: invalid label key \"bad key\": must be a name of at most "
              "63 characters of [A-Za-z0-9-_.], beginning and ending with an alphanumeric "
              "character, with an optional DNS subdomain prefix and '/'"}},
        Case{"InvalidOperator",
             "{matchExpressions: [{key: env, operator: Equals, values: [x]}]}",
             {"42: matchExpressions[0].operator: unsupported value \"Equals\" (supported: In, "
              "NotIn, Exists, DoesNotExist)"}},
        Case{"InNeedsValues",
             "{matchExpressions: [{key: env, operator: In}]}",
             {"21: matchExpressions[0].values: must be non-empty for operator In"}},
        Case{"ExistsTakesNoValues",
             "{matchExpressions: [{key: env, operator: Exists, values: [x]}]}",
             {"58: matchExpressions[0].values: must be empty for operator Exists"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace fleetwave::engine
