// `fleetwave plan` end to end through cli::RunPlan: arguments, files, kubectl-shaped inputs in
// YAML and JSON, both output formats, and errors that name the file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "engine/yaml_json.h"
#include "tests/engine/rollingsync/vector_expect.h"
#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

namespace fs = std::filesystem;
using engine::Json;
using namespace engine::vector_expect;

const std::string kTestdata = ::fleetwave::test_paths::TestdataDir() + "/plan/";

class TempDir {
 public:
  TempDir() {
    // A parameterised test's name has a '/' ("MatchesExpect/A04"): flattened, or the parent
    // directory would be left behind in /tmp by every run.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = fs::temp_directory_path() /
            ("fleetwave-plan-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + name);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p) << text;
    return p;
  }

 private:
  fs::path path_;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome RunPlanCli(const Argv& args) {
  std::ostringstream out, err;
  const int code = RunPlan(args, out, err);
  return {code, out.str(), err.str()};
}

class PlanCliVector : public testing::TestWithParam<std::string> {};

// The conformance vectors once more, this time through argv and files as a user runs them.
TEST_P(PlanCliVector, MatchesExpect) {
  const Json vector = ReadJson(GetParam());
  TempDir dir;
  const Outcome o =
      RunPlanCli({"--appset", dir.Write("appset.json", vector["appset"].dump()), "--apps",
                  dir.Write("apps.json", vector["apps"].dump()), "--now", vector["now"]});
  ASSERT_EQ(o.code, 0) << o.err;
  ExpectMatches(vector["expect"], Json::parse(o.out));
}

INSTANTIATE_TEST_SUITE_P(Conformance, PlanCliVector, testing::ValuesIn(VectorFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return fs::path(info.param).stem().string();
                         });

TEST(PlanCli, AcceptsKubectlYamlAndItsYamlOutputFeedsBackUnchanged) {
  const Outcome first =
      RunPlanCli({"--appset", kTestdata + "kubectl-appset.yaml", "--apps",
                  kTestdata + "kubectl-apps.yaml", "--now", "2026-03-01T12:00:00Z", "-o", "yaml"});
  ASSERT_EQ(first.code, 0) << first.err;
  const auto docs = engine::LoadYamlDocuments(first.out, "out.yaml");
  ASSERT_TRUE(docs.issues.empty());
  const Json out = engine::YamlToJson(docs.documents.at(0));
  EXPECT_EQ(out["appsToSync"], Json::array({"prod-guestbook"}));
  EXPECT_EQ(out["steps"], Json({{"dev-guestbook", 1}, {"prod-guestbook", 2}}));
  EXPECT_EQ(out["status"]["resources"].size(), 1u) << "unknown status fields pass through";

  // Feed the status back, as the daemon would store it, and plan again.
  auto set_docs = engine::LoadYamlDocuments(Slurp(kTestdata + "kubectl-appset.yaml"), "a");
  Json set = engine::YamlToJson(set_docs.documents.at(0));
  set["status"] = out["status"];
  TempDir dir;
  const Outcome second =
      RunPlanCli({"--appset", dir.Write("next.yaml", engine::JsonToYaml(set)), "--apps",
                  kTestdata + "kubectl-apps.yaml", "--now", "2026-03-01T12:00:00Z", "-o", "yaml"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
}

TEST(PlanCli, AppsInputShapes) {
  const Json app = {{"apiVersion", "argoproj.io/v1alpha1"},
                    {"kind", "Application"},
                    {"metadata", {{"name", "a"}, {"labels", {{"step", "1"}}}}},
                    {"spec", {{"project", "default"}}},
                    {"status", {{"sync", {{"status", "OutOfSync"}, {"revision", "r1"}}}}}};
  Json other = app;
  other["metadata"]["name"] = "b";
  const std::string appset =
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\n"
      "spec:\n  generators: []\n  template:\n    metadata: {name: x}\n    spec:\n"
      "      project: default\n      source: {repoURL: 'https://git.example/r.git', path: p}\n"
      "      destination: {server: 'https://kubernetes.default.svc', namespace: n}\n"
      "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
      "      - matchExpressions: [{key: step, operator: In, values: ['1']}]\n";
  struct Case {
    const char* name;
    std::string apps;
    Json to_sync;
  };
  const Case cases[] = {
      {"JsonList", Json({{"kind", "List"}, {"items", {app, other}}}).dump(), {"a", "b"}},
      {"BareJsonArray", Json::array({app, other}).dump(), {"a", "b"}},
      {"SingleJsonObject", app.dump(), {"a"}},
      {"YamlList",
       engine::JsonToYaml({{"apiVersion", "v1"}, {"kind", "List"}, {"items", {app}}}),
       {"a"}},
      {"MultiDocumentYaml",
       engine::JsonToYaml(app) + "---\n" + engine::JsonToYaml(other),
       {"a", "b"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const Outcome o = RunPlanCli({"--appset", dir.Write("s.yaml", appset), "--apps",
                                  dir.Write("apps", c.apps), "--now", "2026-03-01T12:00:00Z"});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(Json::parse(o.out)["appsToSync"], c.to_sync);
  }
}

TEST(PlanCli, ErrorsNameTheFileOrTheFlag) {
  TempDir dir;
  const std::string good_set = kTestdata + "kubectl-appset.yaml";
  const std::string good_apps = kTestdata + "kubectl-apps.yaml";
  const std::string bad_yaml = dir.Write("broken.yaml", "items: [\n  - {");
  const std::string nameless = dir.Write("nameless.json", R"({"items": [{"metadata": {}}]})");
  const std::string two_sets = dir.Write("two.yaml", Slurp(good_set) + "---\n" + Slurp(good_set));
  // A JSON ApplicationSet takes the fast status path; its problems still come with positions.
  const std::string bad_json_set =
      dir.Write("set.json",
                "{\n  \"apiVersion\": \"argoproj.io/v1alpha1\",\n  \"kind\": \"ApplicationSet\",\n"
                "  \"metadata\": {\"name\": \"s\"},\n  \"spec\": {\"bogus\": 1}\n}\n");
  struct Case {
    const char* name;
    Argv args;
    int code;
    std::string in_stderr;
  };
  const Case cases[] = {
      {"MissingApps", {"--appset", good_set}, 2, "--apps is required"},
      {"BadNow", {"--appset", good_set, "--apps", good_apps, "--now", "noon"}, 2, "noon"},
      {"BadFormat", {"--appset", good_set, "--apps", good_apps, "-o", "xml"}, 2, "xml"},
      {"UnreadableFile",
       {"--appset", good_set, "--apps", "/nonexistent/apps.yaml"},
       1,
       "/nonexistent/apps.yaml"},
      {"YamlSyntaxError", {"--appset", good_set, "--apps", bad_yaml}, 1, bad_yaml},
      {"ApplicationWithoutName",
       {"--appset", good_set, "--apps", nameless},
       1,
       nameless + ": items[0].metadata.name"},
      {"JsonApplicationSetProblemHasAPosition",
       {"--appset", bad_json_set, "--apps", good_apps},
       1,
       bad_json_set + ":5:"},
      {"TwoApplicationSets",
       {"--appset", two_sets, "--apps", good_apps},
       1,
       two_sets + ": expected exactly one ApplicationSet, found 2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Outcome o = RunPlanCli(c.args);
    EXPECT_EQ(o.code, c.code);
    EXPECT_NE(o.err.find(c.in_stderr), std::string::npos) << o.err;
    EXPECT_TRUE(o.out.empty());
  }
}

}  // namespace
}  // namespace fleetwave::cli
