// The validate and generate commands, run exactly as the binary runs them, on the seed
// fixtures and the shipped examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/yaml_json.h"
#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

struct CommandResult {
  int code;
  std::string out;
  std::string err;
};

CommandResult Validate(const Argv& args) {
  std::ostringstream out, err;
  int code = RunValidate(args, out, err);
  return {code, out.str(), err.str()};
}

CommandResult Generate(const Argv& args) {
  std::ostringstream out, err;
  int code = RunGenerate(args, out, err);
  return {code, out.str(), err.str()};
}

const std::string kData = ::fleetwave::test_paths::TestdataDir();
const std::string kSource = ::fleetwave::test_paths::SourceDir();

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "fleetwave-cli-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(SeedFixtures, CompleteGuestbookExampleOfSeed001LoadsUnchanged) {
  CommandResult r = Validate({kData + "/appsets/seed001-guestbook.yaml"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("valid (1 ApplicationSet)"), std::string::npos);
}

TEST(SeedFixtures, ProposalExampleOfSeed000IsRejectedWithTheExactMessage) {
  const std::string file = kData + "/appsets/seed000-proposal.yaml";
  CommandResult r = Validate({file});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.err.find(
          file +
          ":21:11: spec.strategy.type: unsupported value \"RollingUpdate\" (supported: AllAtOnce, "
          "RollingSync)\n"),
      std::string::npos)
      << r.err;
}

// [issue 29] A step's analysis with no prometheus: `validate` warns (the daemon would refuse the
// set), judged against --config fleetwave.yaml's analysis.prometheus when given, and says the
// daemon's default must be set when it is not. A warning never fails the file.
TEST(Validate, WarnsOfAnAnalysisWithNoPrometheusToAsk) {
  std::string set = ReadFile(kData + "/appsets/seed001-guestbook.yaml");
  const std::string at = "          maxUpdate: 0 #";
  ASSERT_NE(set.find(at), std::string::npos);
  set.insert(set.find(at),
             "          analysis: {query: 'sum(errors)', successCondition: '< 0.5'}\n");
  const std::string file = WriteTemp("analysis-without-prometheus.yaml", set);
  const std::string with_default =
      WriteTemp("fleetwave-with-prometheus.yaml", "analysis: {prometheus: 'http://p:9090'}\n");
  const std::string without_default = WriteTemp("fleetwave-without-prometheus.yaml", "{}\n");
  const std::string step = "spec.strategy.rollingSync.steps[1].analysis (step 2) has no prometheus";

  CommandResult r = Validate({file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("valid (1 ApplicationSet)"), std::string::npos);
  EXPECT_NE(r.err.find("warning: " + file + ":29:11: " + step +
                       ": the daemon's fleetwave.yaml must set analysis.prometheus, or the "
                       "daemon refuses ApplicationSet guestbook (check it with --config "
                       "fleetwave.yaml)\n"),
            std::string::npos)
      << r.err;

  r = Validate({"--config", without_default, file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + file + ":29:11: " + step +
                       " and fleetwave.yaml sets no analysis.prometheus: the analysis could never "
                       "pass; set the step's analysis.prometheus or analysis.prometheus in "
                       "fleetwave.yaml; the daemon refuses ApplicationSet guestbook\n"),
            std::string::npos)
      << r.err;

  r = Validate({"--config", with_default, file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");

  // The step's own prometheus needs no default.
  std::string own = set;
  own.replace(own.find("query: 'sum(errors)'"), 0, "prometheus: 'http://p:9090', ");
  r = Validate({WriteTemp("analysis-with-prometheus.yaml", own)});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// [issue 29] An AppProject window's syncOverrun is never silently ignored: validate names it in
// a warning (fleetwave lets every running sync finish, so the field has no effect).
TEST(Validate, WarnsThatSyncOverrunHasNoEffect) {
  const std::string file =
      WriteTemp("project-sync-overrun.yaml", R"(apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: prod}
spec:
  sourceRepos: ['*']
  destinations: [{server: '*', namespace: '*'}]
  syncWindows:
  - kind: deny
    schedule: '0 22 * * *'
    duration: 1h
    applications: ['*']
    syncOverrun: false
)");
  const CommandResult r = Validate({file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("valid (1 AppProject)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "warning: " + file +
                       ":12:18: spec.syncWindows[0].syncOverrun: false is not honoured by "
                       "fleetwave: a sync already running when this deny window starts still "
                       "finishes (retries included), where Argo CD would stop it\n");
}

TEST(Validate, WarnsOfARollbackThatCanNeverAct) {
  const std::string file = WriteTemp("rollback-never-acts.yaml", R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web}
spec:
  generators: [{list: {elements: [{env: dev}]}}]
  template:
    metadata: {name: 'web-{{env}}', labels: {env: '{{env}}'}}
    spec:
      project: default
      source: {repoURL: 'https://git.example/web.git', targetRevision: HEAD, path: web}
      destination: {server: 'https://kubernetes.default.svc', namespace: web}
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
        onFailure: Rollback
      - matchExpressions: [{key: env, operator: In, values: [prod]}]
        maxFailures: 1
        onFailure: Rollback
)");
  const CommandResult r = Validate({file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "warning: " + file +
                       ":16:9: spec.strategy.rollingSync.steps[0].onFailure: Rollback never acts: "
                       "the step has neither maxFailures nor analysis, so it never fails (a failed "
                       "app holds it instead)\n");
}

TEST(SeedFixtures, Seed001GeneratesThreeApplicationsWithTheirStepLabels) {
  CommandResult r = Generate({"-f", kData + "/appsets/seed001-guestbook.yaml", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto list = engine::Json::parse(r.out);
  ASSERT_EQ(list["items"].size(), 3u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "engineering-dev-guestbook");
  EXPECT_EQ(list["items"][0]["metadata"]["labels"]["envLabel"], "env-dev");
  EXPECT_EQ(list["items"][1]["spec"]["destination"]["server"], "https://9.8.7.6/")
      << "printed as written";
}

TEST(Validate, ReportsEveryProblemOfEveryFileAndExitsOne) {
  const std::string a =
      WriteTemp("bad-a.yaml",
                "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: a}\n"
                "spec:\n  strategy: {type: RollingSync, rollingSync: {steps: [{maxUpdate: abc}]}}\n"
                "  template:\n    metadata: {name: a}\n"
                "    spec: {source: {repoURL: r}, destination: {server: s}}\n");
  const std::string b = WriteTemp("bad-b.yaml", "kind: [unclosed\n");
  CommandResult r = Validate({a, b});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      a +
          ":5:67: spec.strategy.rollingSync.steps[0].maxUpdate: invalid value \"abc\": must be an "
          "integer >= 0 or a percentage such as \"10%\"\n" +
          b + ":2:1: end of sequence flow not found\n");
}

TEST(Validate, UnreadableFileIsNamed) {
  CommandResult r = Validate({"/nonexistent/set.yaml"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "/nonexistent/set.yaml: No such file or directory\n");
}

TEST(Validate, ConfigFileIsCheckedWithItsKubeconfig) {
  const std::string kc = WriteTemp("kubeconfig.yaml",
                                   "apiVersion: v1\nkind: Config\nclusters:\n"
                                   "- name: c1\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
                                   "users:\n- name: u\n  user: {token: t}\n"
                                   "contexts:\n- name: dev\n  context: {cluster: c1, user: u}\n");
  const std::string cfg =
      WriteTemp("fleetwave.yaml",
                "kubeconfig: kubeconfig.yaml\nclusters:\n  - name: dev\n    labels: {env: dev}\n"
                "  - name: typo\n    labels: {env: prod}\nlisten: {api: nowhere}\nfoo: 1\n");
  CommandResult r = Validate({cfg});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, cfg + ":8:1: foo: unknown field \"foo\"\n" + cfg +
                       ":7:15: listen.api: invalid address \"nowhere\" (expected host:port, e.g. "
                       "127.0.0.1:8089)\n" +
                       cfg + ":5:5: clusters[1].name: no kubeconfig context named \"typo\"\n");
}

// The configuration is found by its shape (no kind, no apiVersion), not by being first: a
// config after an ApplicationSet was once decoded from the ApplicationSet's document.
TEST(Validate, ConfigIsDecodedFromItsOwnDocumentWhereverItIs) {
  WriteTemp("kc3.yaml",
            "clusters:\n- name: c1\n  cluster: {server: 'https://1.2.3.4'}\n"
            "contexts:\n- name: dev\n  context: {cluster: c1}\n");
  const std::string appset = ReadFile(kData + "/appsets/seed001-guestbook.yaml");
  const std::string config = "kubeconfig: kc3.yaml\nclusters:\n- name: dev\n  labels: {a: b}\n";
  struct Case {
    const char* name;
    std::string text;
    std::string want_out;  // after "<file>: valid ("
  };
  const Case cases[] = {
      {"config first", config + "---\n" + appset, "1 ApplicationSet)\n"},
      {"config second", appset + "---\n" + config, "1 ApplicationSet)\n"},
      {"config only", config, "fleetwave configuration, 1 clusters)\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = WriteTemp("mixed.yaml", c.text);
    CommandResult r = Validate({file});
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, file + ": valid (" + c.want_out);
  }
  // And a problem in the later config document is found there, with its own line numbers.
  const std::string file = WriteTemp("mixed-bad.yaml", appset + "---\n" + config + "bogus: 1\n");
  const int config_line = static_cast<int>(std::count(appset.begin(), appset.end(), '\n')) + 2;
  CommandResult r = Validate({file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            file + ":" + std::to_string(config_line + 4) + ":1: bogus: unknown field \"bogus\"\n");
}

TEST(Generate, ResolvesDestinationsAgainstTheConfiguredClusters) {
  const std::string kc = WriteTemp("kc2.yaml",
                                   "apiVersion: v1\nkind: Config\nclusters:\n"
                                   "- name: c1\n  cluster: {server: 'https://1.2.3.4'}\n"
                                   "- name: c2\n  cluster: {server: 'https://2.4.6.8'}\n"
                                   "contexts:\n- name: dev\n  context: {cluster: c1}\n"
                                   "- name: qa\n  context: {cluster: c2}\n");
  const std::string cfg = WriteTemp("fw2.yaml", "kubeconfig: kc2.yaml\n");
  CommandResult r = Generate({"-f", kData + "/appsets/seed001-guestbook.yaml", "--config", cfg});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.err.find(
          "spec.template.spec.destination: Application \"engineering-prod-guestbook\": destination "
          "server \"https://9.8.7.6/\" matches no known cluster"),
      std::string::npos)
      << r.err;
}

TEST(Generate, UsageErrorsExitTwo) {
  EXPECT_EQ(Generate({}).code, 2);
  EXPECT_EQ(Generate({"-f", "x", "-o", "xml"}).code, 2);
  EXPECT_EQ(Generate({"-f", "x", "--bogus"}).code, 2);
}

}  // namespace
}  // namespace fleetwave::cli
