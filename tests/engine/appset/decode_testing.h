// Decoding one ApplicationSet document of "set.yaml" and its issues as text, for the decode
// tables (appset_decode_test.cc, rollout_safety_decode_test.cc).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/appset/appset.h"
#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine::testing {

inline DecodedApplicationSet DecodeSetYaml(const std::string& text) {
  auto docs = LoadYamlDocuments(text, "set.yaml");
  EXPECT_TRUE(docs.issues.empty());
  EXPECT_EQ(docs.documents.size(), 1u);
  return DecodeApplicationSet(docs.documents.at(0), "set.yaml");
}

inline std::vector<std::string> IssueMessages(const Issues& issues) {
  std::vector<std::string> out;
  for (const auto& i : issues) out.push_back(FormatIssue(i));
  return out;
}

}  // namespace fleetwave::engine::testing
