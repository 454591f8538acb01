// A document that is neither an ApplicationSet nor a fleetwave configuration is reported in
// one line, instead of being decoded as one of them (a ConfigMap as an ApplicationSet with
// three wrong fields; a list as a configuration).
#include <gtest/gtest.h>

#include "engine/validation.h"

namespace fleetwave::engine {
namespace {

std::vector<std::string> Check(const std::string& text) {
  const LoadedDocuments docs = LoadYamlDocuments(text, "in.yaml");
  EXPECT_TRUE(docs.issues.empty());
  std::vector<std::string> out;
  for (const auto& i : ValidateDocuments(docs.documents, "in.yaml", {}).issues)
    out.push_back(FormatIssue(i));
  return out;
}

TEST(ValidateForeign, OneLineForAFileOfOtherDocuments) {
  const struct {
    const char* name;
    std::string text;
    std::vector<std::string> want;
  } cases[] = {
      {"ConfigMap",
       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
       {"in.yaml:1:1: neither an ApplicationSet nor a fleetwave configuration (kind: ConfigMap)"}},
      {"SeveralForeignDocumentsStillOneLine",
       "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Service\n",
       {"in.yaml:1:1: neither an ApplicationSet nor a fleetwave configuration (kind: ConfigMap)"}},
      {"ApiVersionWithoutKind",
       "apiVersion: v1\nmetadata: {name: x}\n",
       {"in.yaml:1:1: neither an ApplicationSet nor a fleetwave configuration (apiVersion: v1, "
        "no kind)"}},
      {"NotAMapping",
       "- a\n- b\n",
       {"in.yaml:1:1: neither an ApplicationSet nor a fleetwave configuration (not a mapping)"}},
      {"ForeignNextToAnApplicationSetIsNamedAtItsDocument",
       "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: a}\nspec:\n"
       "  generators: []\n  template:\n    metadata: {name: x}\n    spec: {project: default, "
       "source: {repoURL: r, path: p}, destination: {server: s, namespace: n}}\n---\n"
       "apiVersion: v1\nkind: Secret\n",
       {"in.yaml:10:1: neither an ApplicationSet nor a fleetwave configuration (kind: Secret)"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Check(c.text), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
