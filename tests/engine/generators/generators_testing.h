// Helpers for the generator table tests: load an ApplicationSet from a spec snippet, and
// compare generated Applications with hand-written expected ones.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/appset/generate.h"

namespace fleetwave::engine::testing {

// An ApplicationSet "web" in namespace argocd with `spec` (YAML starting at "spec:").
inline DecodedApplicationSet DecodeSpec(const std::string& spec) {
  auto docs = LoadYamlDocuments(
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web, namespace: "
      "argocd}\n" +
          spec,
      "set.yaml");
  EXPECT_TRUE(docs.issues.empty());
  if (docs.documents.empty()) return {};
  return DecodeApplicationSet(docs.documents.at(0), "set.yaml");
}

inline std::vector<std::string> Messages(const Issues& issues) {
  std::vector<std::string> out;
  for (const auto& i : issues) out.push_back(FormatIssue(i));
  return out;
}

// The expected Applications, written as one YAML flow mapping per app holding its metadata
// (without the namespace every app of "web" gets) and spec.
inline void ExpectApps(const GenerateResult& r, const std::vector<std::string>& want) {
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  std::vector<Json> got, expected;
  for (const auto& app : r.apps) {
    Json o = app.object;
    EXPECT_EQ(o["apiVersion"], "argoproj.io/v1alpha1");
    EXPECT_EQ(o["kind"], "Application");
    EXPECT_EQ(o["metadata"]["namespace"], "argocd");
    o["metadata"].erase("namespace");
    got.push_back({{"metadata", o["metadata"]}, {"spec", o["spec"]}});
  }
  for (const auto& w : want) {
    auto docs = LoadYamlDocuments(w, "want");
    EXPECT_TRUE(docs.issues.empty()) << w;
    if (!docs.documents.empty()) expected.push_back(YamlToJson(docs.documents[0]));
  }
  EXPECT_EQ(Json(got).dump(1), Json(expected).dump(1));
}

}  // namespace fleetwave::engine::testing
