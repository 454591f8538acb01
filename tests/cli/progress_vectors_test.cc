// Conformance: every vector in spec/vectors/progress/ through `fleetwave progress`, exactly as
// a user runs it (the object written to a file, -f FILE --now T, JSON parsed back).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<fs::path> VectorFiles() {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(::fleetwave::test_paths::VectorsDir()) / "progress";
  if (!fs::is_directory(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

class ProgressVectorTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ProgressVectorTest, MatchesExpectation) {
  const json vec = ReadJson(GetParam());
  SCOPED_TRACE(vec.value("derivedFrom", ""));
  const fs::path object_file =
      fs::path(::testing::TempDir()) / (vec.at("id").get<std::string>() + ".object.json");
  {
    std::ofstream out(object_file);
    out << vec.at("object").dump(1);
  }
  std::ostringstream out, err;
  const int rc = RunProgress(
      {"-f", object_file.string(), "--now", vec.at("now").get<std::string>()}, out, err);
  fs::remove(object_file);
  ASSERT_EQ(rc, 0) << err.str();
  const json got = json::parse(out.str());
  const json& expect = vec.at("expect");

  if (expect.at("condition").is_null()) {
    EXPECT_TRUE(got.at("condition").is_null()) << got.dump(1);
  } else {
    ASSERT_TRUE(got.at("condition").is_object()) << got.dump(1);
    for (const auto& [field, value] : expect.at("condition").items()) {
      EXPECT_EQ(got.at("condition").value(field, json()), value) << "condition." << field;
    }
  }
  const double want = expect.at("requeueAfterSeconds").get<double>();
  const double have = got.at("requeueAfterSeconds").get<double>();
  if (want == -1) {
    EXPECT_EQ(have, -1);
  } else {
    EXPECT_NEAR(have, want, 0.01);
  }
}

std::string VectorName(const ::testing::TestParamInfo<fs::path>& info) {
  std::string id = info.param.stem().string();
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return id;
}

INSTANTIATE_TEST_SUITE_P(Vectors, ProgressVectorTest, ::testing::ValuesIn(VectorFiles()),
                         VectorName);

// A missing or empty vector directory must fail loudly rather than pass with zero cases.
TEST(ProgressVectors, DirectoryHoldsVectors) { EXPECT_GE(VectorFiles().size(), 37u); }

}  // namespace
}  // namespace fleetwave::cli
