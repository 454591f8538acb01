// Reading the plan conformance vectors and comparing a `plan` output with a vector's
// `expect` (vectors/README.md: only what `expect` lists). Shared by the engine-level suite
// and the CLI suite so both judge by the same rules.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/yaml_json.h"
#include "tests/test_paths.h"

namespace fleetwave::engine::vector_expect {

inline std::vector<std::string> VectorFiles() {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(::fleetwave::test_paths::VectorsDir() + "/plan")) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return Json::parse(buf.str());
}

// Follows a dotted path ("sync.revision", "retry.limit") through objects.
inline const Json* At(const Json& doc, const std::string& dotted) {
  const Json* cur = &doc;
  std::stringstream parts(dotted);
  std::string key;
  while (std::getline(parts, key, '.')) {
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
  }
  return cur;
}

inline void ExpectMatches(const Json& expect, const Json& out) {
  const Json& status = out["status"];
  if (expect.contains("applicationStatus")) {
    const Json& want = expect["applicationStatus"];
    const Json& got = status["applicationStatus"];
    ASSERT_EQ(got.size(), want.size()) << "applicationStatus: " << got.dump();
    for (size_t i = 0; i < want.size(); ++i) {
      for (const auto& [field, value] : want[i].items()) {
        EXPECT_EQ(got[i].value(field, Json()), value)
            << "applicationStatus[" << i << "]." << field << " in " << got[i].dump();
      }
    }
  }
  if (expect.contains("appsToSync")) {
    EXPECT_EQ(out["appsToSync"], expect["appsToSync"]);
  }
  if (expect.contains("steps")) {
    EXPECT_EQ(out["steps"], expect["steps"]);
  }
  if (expect.contains("conditions")) {
    for (const auto& [type, want] : expect["conditions"].items()) {
      const Json* found = nullptr;
      for (const auto& c : status["conditions"]) {
        if (c["type"] == type) found = &c;
      }
      ASSERT_NE(found, nullptr) << "condition " << type << " missing";
      for (const auto& [field, value] : want.items()) {
        EXPECT_EQ((*found).value(field, Json()), value) << "condition " << type << "." << field;
      }
    }
  }
  if (expect.contains("absentConditions")) {
    for (const auto& type : expect["absentConditions"]) {
      for (const auto& c : status["conditions"]) {
        EXPECT_NE(c["type"], type) << "condition " << type << " must be absent";
      }
    }
  }
  if (expect.contains("operations")) {
    for (const auto& [app, paths] : expect["operations"].items()) {
      ASSERT_TRUE(out["operations"].contains(app)) << "no operation for " << app;
      const Json& op = out["operations"][app];
      for (const auto& [path, value] : paths.items()) {
        const Json* got = At(op, path);
        ASSERT_NE(got, nullptr) << app << ": " << path << " missing in " << op.dump();
        EXPECT_EQ(*got, value) << app << ": " << path;
      }
    }
  }
}

}  // namespace fleetwave::engine::vector_expect
