// kubeconfig loading: kubectl-written fixtures, KUBECONFIG merge rules, and the errors a user
// sees (naming file and context, never a credential).
#include "cluster-clients/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cluster-clients/base64.h"
#include "tests/test_paths.h"

namespace fleetwave::clients {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kDir = ::fleetwave::test_paths::TestdataDir() + "/kubeconfig/";

const ClusterConfig* Find(const KubeconfigSet& set, const std::string& name) {
  for (const auto& c : set.clusters)
    if (c.name == name) return &c;
  return nullptr;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(KubeconfigTest, KubectlBuiltFileLoadsEveryContext) {
  KubeconfigSet set = LoadKubeconfigs({kDir + "kubectl-built.yaml"});
  ASSERT_TRUE(set.errors.empty()) << engine::FormatIssue(set.errors[0]);
  EXPECT_EQ(set.clusters.size(), 5u);
  EXPECT_EQ(set.current_context, "prod-eu");

  const ClusterConfig* prod = Find(set, "prod-eu");
  ASSERT_NE(prod, nullptr);
  // The path prefix stays; the trailing slash goes (requests append "/api/...").
  EXPECT_EQ(prod->server, "https://prod-eu.example.test:6443/k8s/clusters/c-42");
  EXPECT_EQ(prod->ca_pem, ReadAll(kDir + "ca.crt"));  // certificate-authority-data decoded
  EXPECT_EQ(prod->token, "fixture-token-do-not-log");
  EXPECT_EQ(prod->default_namespace, "apps");
  EXPECT_EQ(prod->source_file, kDir + "kubectl-built.yaml");

  const ClusterConfig* staging = Find(set, "staging");
  ASSERT_NE(staging, nullptr);
  EXPECT_EQ(staging->ca_pem, ReadAll(kDir + "ca.crt"));  // relative file, read at load
  EXPECT_EQ(staging->client_cert_pem, ReadAll(kDir + "client.crt"));
  EXPECT_EQ(staging->client_key_pem, ReadAll(kDir + "client.key"));
  const ClusterConfig* files = Find(set, "staging-files");
  ASSERT_NE(files, nullptr);
  EXPECT_EQ(files->client_cert_pem, staging->client_cert_pem);

  const ClusterConfig* lab = Find(set, "lab");
  ASSERT_NE(lab, nullptr);
  EXPECT_TRUE(lab->insecure_skip_tls_verify);
  ASSERT_TRUE(lab->exec.has_value());
  EXPECT_EQ(lab->exec->api_version, "client.authentication.k8s.io/v1beta1");
  // kubectl cleaned "./exec-plugin.sh" to a bare name: a PATH lookup, not a file path.
  EXPECT_EQ(lab->exec->command, "exec-plugin.sh");
  EXPECT_EQ(lab->exec->args, (std::vector<std::string>{"--cluster", "lab"}));
  ASSERT_EQ(lab->exec->env.size(), 1u);
  EXPECT_EQ(lab->exec->env[0].first, "FIXTURE_TOKEN");

  const ClusterConfig* proxied = Find(set, "via-proxy");
  ASSERT_NE(proxied, nullptr);
  EXPECT_EQ(proxied->proxy_url, "http://127.0.0.1:3128");

  // insecure-skip-tls-verify is honoured, and said out loud.
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_THAT(set.warnings[0], HasSubstr("context \"lab\""));
  EXPECT_THAT(set.warnings[0], HasSubstr("insecure-skip-tls-verify"));
}

TEST(KubeconfigTest, FirstFileWinsWhenMerging) {
  KubeconfigSet set = LoadKubeconfigs({kDir + "merge-a.yaml", kDir + "merge-b.yaml"});
  ASSERT_TRUE(set.errors.empty()) << engine::FormatIssue(set.errors[0]);
  ASSERT_EQ(set.clusters.size(), 3u);
  EXPECT_EQ(set.clusters[0].name, "shared");
  EXPECT_EQ(set.clusters[1].name, "only-a");
  EXPECT_EQ(set.clusters[2].name, "only-b");
  EXPECT_EQ(set.current_context, "shared");
  EXPECT_EQ(Find(set, "shared")->server, "https://a.example.test");
  EXPECT_EQ(Find(set, "shared")->token, "token-from-a");
  // A context from the second file resolves names against the merged set.
  EXPECT_EQ(Find(set, "only-b")->server, "https://b-only.example.test/prefix");
  EXPECT_EQ(Find(set, "only-b")->token, "token-from-a");
  EXPECT_EQ(Find(set, "only-b")->source_file, kDir + "merge-b.yaml");

  KubeconfigSet reversed = LoadKubeconfigs({kDir + "merge-b.yaml", kDir + "merge-a.yaml"});
  EXPECT_EQ(Find(reversed, "shared")->server, "https://b-only.example.test/prefix");
  EXPECT_EQ(Find(reversed, "shared")->token, "token-from-b");
  EXPECT_EQ(reversed.current_context, "only-b");
}

TEST(KubeconfigTest, ExecPluginCommandResolvesAgainstTheFile) {
  KubeconfigSet set = LoadKubeconfigs({kDir + "exec.yaml"});
  ASSERT_TRUE(set.errors.empty()) << engine::FormatIssue(set.errors[0]);
  const ClusterConfig* v1 = Find(set, "exec-v1");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->exec->command, kDir + "exec-plugin.sh");
  EXPECT_EQ(v1->exec->interactive_mode, "Never");
  // v1beta1 defaults interactiveMode as client-go does.
  EXPECT_EQ(Find(set, "exec-v1beta1")->exec->interactive_mode, "IfAvailable");
}

TEST(KubeconfigTest, SplitsKubeconfigVariable) {
  EXPECT_EQ(SplitKubeconfigPath("/a:/b::/c"), (std::vector<std::string>{"/a", "/b", "/c"}));
  EXPECT_TRUE(SplitKubeconfigPath("").empty());
}

// `-data` fields go through the client's one base64 decoder (base64_test.cc pins the rest).
TEST(KubeconfigTest, DecodesBase64) {
  EXPECT_EQ(Base64Decode("aGVsbG8="), "hello");
  EXPECT_EQ(Base64Decode("aGVs\nbG8h"), "hello!");
  EXPECT_EQ(Base64Decode("not base64!"), std::nullopt);
}

struct ErrorCase {
  const char* name;
  const char* yaml;
  const char* want;  // substring of the single error
};

class KubeconfigErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(KubeconfigErrorTest, NamesFileAndContextWithoutSecrets) {
  const ErrorCase& c = GetParam();
  const auto dir =
      std::filesystem::temp_directory_path() / ("fw-kubeconfig-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (std::string(c.name) + ".yaml")).string();
  std::ofstream(path) << c.yaml;
  KubeconfigSet set = LoadKubeconfigs({path});
  ASSERT_EQ(set.errors.size(), 1u) << c.name;
  const std::string error = engine::FormatIssue(set.errors[0]);
  EXPECT_THAT(error, HasSubstr(path));
  EXPECT_THAT(error, HasSubstr(c.want));
  EXPECT_THAT(error, Not(HasSubstr("s3cr3t")));
  // The broken context is skipped; the good one still loads.
  ASSERT_EQ(set.clusters.size(), 1u);
  EXPECT_EQ(set.clusters[0].name, "good");
  std::filesystem::remove_all(dir);
}

#define GOOD                                                                \
  "clusters:\n- name: ok\n  cluster: {server: 'https://ok.example.test'}\n" \
  "users:\n- name: u\n  user: {token: s3cr3t}\n"                            \
  "contexts:\n- name: good\n  context: {cluster: ok, user: u}\n"

INSTANTIATE_TEST_SUITE_P(
    Cases, KubeconfigErrorTest,
    ::testing::Values(
        ErrorCase{"missing_cluster", GOOD "- name: bad\n  context: {cluster: nope, user: u}\n",
                  "context \"bad\": cluster \"nope\" is not defined"},
        ErrorCase{"missing_user", GOOD "- name: bad\n  context: {cluster: ok, user: nobody}\n",
                  "context \"bad\": user \"nobody\" is not defined"},
        ErrorCase{"bad_ca_data",
                  "clusters:\n- name: ok\n  cluster: {server: 'https://ok.example.test'}\n"
                  "- name: x\n  cluster: {server: 'https://x', certificate-authority-data: "
                  "'%%%'}\n"
                  "users:\n- name: u\n  user: {token: s3cr3t}\n"
                  "contexts:\n- name: good\n  context: {cluster: ok, user: u}\n"
                  "- name: bad\n  context: {cluster: x, user: u}\n",
                  "context \"bad\": certificate-authority-data is not valid base64"},
        ErrorCase{"v1_exec_without_interactive_mode",
                  "clusters:\n- name: ok\n  cluster: {server: 'https://ok.example.test'}\n"
                  "users:\n- name: u\n  user: {token: s3cr3t}\n"
                  "- name: e\n  user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
                  "command: x}}\n"
                  "contexts:\n- name: good\n  context: {cluster: ok, user: u}\n"
                  "- name: bad\n  context: {cluster: ok, user: e}\n",
                  "interactiveMode must be specified"},
        ErrorCase{"missing_ca_file",
                  "clusters:\n- name: ok\n  cluster: {server: 'https://ok.example.test'}\n"
                  "- name: x\n  cluster: {server: 'https://x', certificate-authority: "
                  "no-such-ca.crt}\n"
                  "users:\n- name: u\n  user: {token: s3cr3t}\n"
                  "contexts:\n- name: good\n  context: {cluster: ok, user: u}\n"
                  "- name: bad\n  context: {cluster: x, user: u}\n",
                  "cannot read certificate-authority"},
        ErrorCase{"no_server",
                  "clusters:\n- name: ok\n  cluster: {server: 'https://ok.example.test'}\n"
                  "- name: x\n  cluster: {}\n"
                  "users:\n- name: u\n  user: {token: s3cr3t}\n"
                  "contexts:\n- name: good\n  context: {cluster: ok, user: u}\n"
                  "- name: bad\n  context: {cluster: x, user: u}\n",
                  "has no server"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(KubeconfigTest, InsecureWithCaIsRefusedAsKubectlDoes) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("fw-insecure-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  std::ofstream(path) << "clusters:\n- name: x\n  cluster: {server: 'https://x', "
                         "insecure-skip-tls-verify: true, certificate-authority-data: "
                         "aGVsbG8=}\ncontexts:\n- name: bad\n  context: {cluster: x}\n";
  KubeconfigSet set = LoadKubeconfigs({path});
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_THAT(engine::FormatIssue(set.errors[0]), HasSubstr("context \"bad\""));
  EXPECT_THAT(engine::FormatIssue(set.errors[0]), HasSubstr("insecure flag is not allowed"));
  std::filesystem::remove(path);
}

TEST(KubeconfigTest, UnreadableAndInvalidFilesAreNamed) {
  KubeconfigSet set = LoadKubeconfigs({"/nonexistent/kubeconfig"});
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(engine::FormatIssue(set.errors[0]), "/nonexistent/kubeconfig: cannot read kubeconfig");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("fw-invalid-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  std::ofstream(path) << "users:\n- name: u\n  user: {token: s3cr3t\n";
  set = LoadKubeconfigs({path});
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_THAT(engine::FormatIssue(set.errors[0]), HasSubstr(path + ": invalid YAML at line"));
  EXPECT_THAT(engine::FormatIssue(set.errors[0]), Not(HasSubstr("s3cr3t")));
  std::filesystem::remove(path);
}

TEST(KubeconfigTest, ContextErrorNamesFilePositionAndEntry) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fw-ctx-" + std::to_string(::getpid()) + ".yaml"))
          .string();
  std::ofstream(path) << "clusters: []\ncontexts:\n- name: c\n  context: {cluster: nope}\n";
  KubeconfigSet set = LoadKubeconfigs({path});
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(engine::FormatIssue(set.errors[0]),
            path + ":3:3: contexts[0]: context \"c\": cluster \"nope\" is not defined");
  std::filesystem::remove(path);
}

TEST(KubeconfigTest, ClusterValuesAreWhatTheEngineSees) {
  KubeconfigSet set = LoadKubeconfigs({kDir + "merge-a.yaml", kDir + "merge-b.yaml"});
  const std::vector<engine::ClusterInfo> values = ClusterValues(set);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].name, "shared");
  EXPECT_EQ(values[0].server, "https://a.example.test");
  EXPECT_EQ(values[2].name, "only-b");
  EXPECT_EQ(values[2].server, "https://b-only.example.test/prefix");
  EXPECT_TRUE(values[0].labels.empty());
}

// Malformed kubeconfigs never throw: every wrong shape is one issue naming the file, the
// position and the field, and the well-formed context still loads.
struct ShapeCase {
  const char* name;
  const char* yaml;  // appended after a good cluster, user and context
  const char* want;  // the single issue, after "<file>:"
};

class KubeconfigShapeTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(KubeconfigShapeTest, WrongShapesAreIssuesNotExceptions) {
  const ShapeCase& c = GetParam();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fw-kubeconfig-shape-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (std::string(c.name) + ".yaml")).string();
  std::ofstream(path) << c.yaml;
  KubeconfigSet set;
  ASSERT_NO_THROW(set = LoadKubeconfigs({path}));
  ASSERT_EQ(set.errors.size(), 1u) << c.name;
  EXPECT_EQ(engine::FormatIssue(set.errors[0]), path + ":" + c.want);
  ASSERT_EQ(set.clusters.size(), 1u);
  EXPECT_EQ(set.clusters[0].name, "good");
  std::filesystem::remove_all(dir);
}

#define OK_CLUSTER "- name: ok\n  cluster: {server: 'https://ok.example.test'}\n"
#define OK_USER "- name: u\n  user: {token: t}\n"
#define OK_CONTEXT "- name: good\n  context: {cluster: ok, user: u}\n"

INSTANTIATE_TEST_SUITE_P(
    Cases, KubeconfigShapeTest,
    ::testing::Values(
        ShapeCase{"server_is_a_map",
                  "clusters:\n" OK_CLUSTER "- name: x\n  cluster: {server: {a: 1}}\n"
                  "users:\n" OK_USER "contexts:\n" OK_CONTEXT,
                  "5:21: clusters[1].cluster.server: wrong type: expected string, got object"},
        ShapeCase{"cluster_is_a_list",
                  "clusters:\n" OK_CLUSTER "- name: x\n  cluster: [a]\n"
                  "users:\n" OK_USER "contexts:\n" OK_CONTEXT,
                  "5:12: clusters[1].cluster: wrong type: expected object, got array"},
        ShapeCase{"entry_is_a_string",
                  "clusters:\n" OK_CLUSTER "- just-a-name\n"
                  "users:\n" OK_USER "contexts:\n" OK_CONTEXT,
                  "4:3: clusters[1]: wrong type: expected object, got string"},
        ShapeCase{"name_is_a_list",
                  "clusters:\n" OK_CLUSTER "- name: [x]\n  cluster: {}\n"
                  "users:\n" OK_USER "contexts:\n" OK_CONTEXT,
                  "4:9: clusters[1].name: wrong type: expected string, got array"},
        ShapeCase{"users_is_a_map",
                  "clusters:\n" OK_CLUSTER "users: {u: {token: t}}\ncontexts:\n"
                  "- name: good\n  context: {cluster: ok}\n",
                  "4:8: users: wrong type: expected array, got object"},
        ShapeCase{"null_user_body_is_empty",
                  "clusters:\n" OK_CLUSTER "users:\n" OK_USER "- name: n\n  user: null\n"
                  "contexts:\n" OK_CONTEXT "- name: bad\n  context: {cluster: nope, user: n}\n",
                  "12:3: contexts[1]: context \"bad\": cluster \"nope\" is not defined"},
        ShapeCase{"exec_is_a_string",
                  "clusters:\n" OK_CLUSTER "users:\n" OK_USER "- name: e\n  user: {exec: run-me}\n"
                  "contexts:\n" OK_CONTEXT "- name: bad\n  context: {cluster: ok, user: e}\n",
                  "8:16: users[1].user.exec: wrong type: expected object, got string"},
        ShapeCase{
            "exec_args_is_a_map",
            "clusters:\n" OK_CLUSTER "users:\n" OK_USER
            "- name: e\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
            "command: x, args: {a: b}}\n"
            "contexts:\n" OK_CONTEXT "- name: bad\n  context: {cluster: ok, user: e}\n",
            "9:80: users[1].user.exec.args: wrong type: expected array, got object"},
        ShapeCase{
            "exec_env_entry_is_a_string",
            "clusters:\n" OK_CLUSTER "users:\n" OK_USER
            "- name: e\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
            "command: x, env: [A=b]}\n"
            "contexts:\n" OK_CONTEXT "- name: bad\n  context: {cluster: ok, user: e}\n",
            "9:80: users[1].user.exec.env[0]: wrong type: expected object, got string"},
        ShapeCase{
            "insecure_is_not_a_boolean",
            "clusters:\n" OK_CLUSTER
            "- name: x\n  cluster: {server: 'https://x', insecure-skip-tls-verify: maybe}\n"
            "users:\n" OK_USER "contexts:\n" OK_CONTEXT "- name: bad\n  context: {cluster: x}\n",
            "5:60: clusters[1].cluster.insecure-skip-tls-verify: wrong type: expected boolean, "
            "got string"},
        ShapeCase{"context_cluster_is_a_map",
                  "clusters:\n" OK_CLUSTER "users:\n" OK_USER "contexts:\n" OK_CONTEXT
                  "- name: bad\n  context: {cluster: {name: ok}}\n",
                  "11:22: contexts[1].context.cluster: wrong type: expected string, got object"},
        ShapeCase{"current_context_is_a_list",
                  "current-context: [a]\nclusters:\n" OK_CLUSTER "users:\n" OK_USER
                  "contexts:\n" OK_CONTEXT,
                  "1:18: current-context: wrong type: expected string, got array"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fleetwave::clients
