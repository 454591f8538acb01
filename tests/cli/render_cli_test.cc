// `fleetwave render`, run as the binary runs it, on examples/guestbook served from a git
// repository the test builds (the shipped ApplicationSet with its repoURL pointed there).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "engine/appset/render.h"
#include "engine/sync/tracking.h"
#include "engine/yaml_json.h"
#include "tests/sources/git_repo.h"
#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using engine::Json;
using sources::testing::GitRepo;
using sources::testing::TempDir;
namespace fs = std::filesystem;

const std::string kSource = ::fleetwave::test_paths::SourceDir();

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

struct CommandResult {
  int code;
  std::string out;
  std::string err;
};

CommandResult Render(const Argv& args) {
  std::ostringstream out, err;
  const int code = RunRender(args, out, err);
  return {code, out.str(), err.str()};
}

constexpr const char* kSecret = R"(apiVersion: v1
kind: Secret
metadata:
  name: guestbook-db
type: Opaque
data:
  password: c3VwZXJzZWNyZXQ=
stringData:
  user: admin-in-clear
)";

class RenderCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_dir_ = (fs::path(tmp_.path()) / "repo").string();
    fs::create_directories(repo_dir_);
    repo_ = std::make_unique<GitRepo>(repo_dir_);
    repo_->Write("guestbook/guestbook.yaml",
                 ReadFile(kSource + "/examples/guestbook/manifests/guestbook/guestbook.yaml"));
    first_ = repo_->Commit("guestbook");
    std::string appset = ReadFile(kSource + "/examples/guestbook/applicationsets/guestbook.yaml");
    const std::string shipped = "file:///var/tmp/fleetwave-quickstart/guestbook.git";
    const auto at = appset.find(shipped);
    ASSERT_NE(at, std::string::npos);
    appset.replace(at, shipped.size(), "file://" + repo_dir_);
    appset_ = (fs::path(tmp_.path()) / "applicationset.yaml").string();
    std::ofstream(appset_) << appset;
  }

  Json RenderJson(Argv extra = {}) {
    Argv args = {"engineering-dev-guestbook", "-f", appset_, "-o", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = Render(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return Json::parse(r.out, nullptr, false);
  }

  TempDir tmp_;
  std::string repo_dir_;
  std::unique_ptr<GitRepo> repo_;
  std::string first_;
  std::string appset_;
};

TEST_F(RenderCliTest, GuestbookObjectsAsApplied) {
  const Json list = RenderJson();
  ASSERT_TRUE(list.is_object());
  // The example asks for CreateNamespace=true: the destination namespace comes first.
  ASSERT_EQ(list["items"].size(), 3u);
  const Json& ns = list["items"][0];
  const Json& deploy = list["items"][1];
  const Json& svc = list["items"][2];
  EXPECT_EQ(ns["kind"], "Namespace");
  EXPECT_EQ(ns["metadata"]["name"], "guestbook");
  EXPECT_EQ(deploy["kind"], "Deployment");
  EXPECT_EQ(svc["kind"], "Service");
  // Namespace defaulted to the app's destination namespace.
  EXPECT_EQ(deploy["metadata"]["namespace"], "guestbook");
  EXPECT_EQ(svc["metadata"]["namespace"], "guestbook");
  // The marks: tracking id per object, the app label, the hash of the marked object.
  const auto& ann = deploy["metadata"]["annotations"];
  EXPECT_EQ(ann["fleetwave.io/tracking-id"],
            "guestbook/engineering-dev-guestbook:apps/Deployment:guestbook/guestbook-ui");
  EXPECT_EQ(svc["metadata"]["annotations"]["fleetwave.io/tracking-id"],
            "guestbook/engineering-dev-guestbook:/Service:guestbook/guestbook-ui");
  EXPECT_EQ(deploy["metadata"]["labels"]["fleetwave.io/app"],
            engine::Fnv1a64Hex("guestbook/engineering-dev-guestbook"));
  Json unhashed = deploy;
  unhashed["metadata"]["annotations"].erase("fleetwave.io/applied-hash");
  EXPECT_EQ(ann["fleetwave.io/applied-hash"], engine::Fnv1a64Hex(unhashed.dump()));
  // The manifest's own content is untouched.
  EXPECT_EQ(deploy["spec"]["replicas"], 2);
  EXPECT_EQ(deploy["spec"]["template"]["spec"]["containers"][0]["image"],
            "gcr.io/heptio-images/ks-guestbook-demo:0.2");
}

TEST_F(RenderCliTest, YamlAndJsonAgree) {
  const CommandResult r = Render({"engineering-dev-guestbook", "-f", appset_});
  ASSERT_EQ(r.code, 0) << r.err;
  const engine::LoadedDocuments docs = engine::LoadYamlDocuments(r.out, "out");
  ASSERT_TRUE(docs.issues.empty());
  const Json list = RenderJson();
  ASSERT_EQ(docs.documents.size(), list["items"].size());
  for (size_t i = 0; i < docs.documents.size(); ++i) {
    EXPECT_EQ(engine::YamlToJson(docs.documents[i]), list["items"][i]);
  }
}

TEST_F(RenderCliTest, Revisions) {
  const Json at_first = RenderJson();
  // A commit outside the app's path renders the same objects (same hashes).
  repo_->Write("README.md", "docs only\n");
  repo_->Commit("docs");
  EXPECT_EQ(RenderJson(), at_first);
  // A commit inside it changes them; --revision still renders the old commit.
  std::string text = ReadFile(repo_dir_ + "/guestbook/guestbook.yaml");
  text.replace(text.find("replicas: 2"), 11, "replicas: 3");
  repo_->Write("guestbook/guestbook.yaml", text);
  repo_->Commit("scale");
  const Json at_head = RenderJson();
  EXPECT_EQ(at_head["items"][1]["spec"]["replicas"], 3);
  EXPECT_NE(at_head["items"][1]["metadata"]["annotations"]["fleetwave.io/applied-hash"],
            at_first["items"][1]["metadata"]["annotations"]["fleetwave.io/applied-hash"]);
  EXPECT_EQ(RenderJson({"--revision", first_}), at_first);
  EXPECT_EQ(RenderJson({"--revision", first_.substr(0, 10)}), at_first);
}

TEST_F(RenderCliTest, NamespacesComeFirstAndSecretsAreRedacted) {
  repo_->Write("guestbook/namespace.yaml",
               "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: guestbook\n");
  repo_->Write("guestbook/secret.yaml", kSecret);
  repo_->Commit("namespace and secret");
  const CommandResult r = Render({"engineering-dev-guestbook", "-f", appset_, "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("c3VwZXJzZWNyZXQ="), std::string::npos);
  EXPECT_EQ(r.out.find("admin-in-clear"), std::string::npos);
  const Json list = Json::parse(r.out);
  ASSERT_EQ(list["items"].size(), 4u);
  EXPECT_EQ(list["items"][0]["kind"], "Namespace");
  EXPECT_FALSE(list["items"][0]["metadata"].contains("namespace"));
  // Then file-name order: guestbook.yaml (Deployment, Service), secret.yaml.
  EXPECT_EQ(list["items"][1]["kind"], "Deployment");
  EXPECT_EQ(list["items"][2]["kind"], "Service");
  const Json& secret = list["items"][3];
  EXPECT_EQ(secret["kind"], "Secret");
  EXPECT_EQ(secret["data"]["password"], "<redacted>");
  EXPECT_EQ(secret["stringData"]["user"], "<redacted>");
  EXPECT_EQ(secret["metadata"]["annotations"]["fleetwave.io/applied-hash"], "<redacted>");
  EXPECT_EQ(secret["metadata"]["annotations"]["fleetwave.io/tracking-id"],
            "guestbook/engineering-dev-guestbook:/Secret:guestbook/guestbook-db");
  const CommandResult yaml = Render({"engineering-dev-guestbook", "-f", appset_});
  EXPECT_EQ(yaml.out.find("c3VwZXJzZWNyZXQ="), std::string::npos);
  EXPECT_EQ(yaml.out.find("admin-in-clear"), std::string::npos);
}

TEST_F(RenderCliTest, Failures) {
  struct Case {
    const char* name;
    Argv args;
    int want_code;
    std::string want_err;  // a substring
  };
  const Case cases[] = {
      {"no app", {"-f", appset_}, 2, "usage: fleetwave render APP"},
      {"two apps", {"a", "b", "-f", appset_}, 2, "usage: fleetwave render APP"},
      {"no -f", {"engineering-dev-guestbook"}, 2, "usage: fleetwave render APP"},
      {"bad format", {"engineering-dev-guestbook", "-f", appset_, "-o", "xml"}, 2, "usage:"},
      {"unknown app",
       {"nope", "-f", appset_},
       1,
       "ApplicationSet guestbook generates no Application \"nope\" (it generates: "
       "engineering-dev-guestbook, engineering-prod-guestbook, engineering-qa-guestbook)"},
      {"unknown revision",
       {"engineering-dev-guestbook", "-f", appset_, "--revision", "no-such"},
       1,
       "no-such"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const CommandResult r = Render(c.args);
    EXPECT_EQ(r.code, c.want_code);
    EXPECT_NE(r.err.find(c.want_err), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(RenderCliTest, BadManifestNamesItsPlace) {
  repo_->Write("guestbook/broken.yaml", "apiVersion: v1\nkind: [unclosed\n");
  const std::string sha = repo_->Commit("broken");
  const CommandResult r = Render({"engineering-dev-guestbook", "-f", appset_});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("@" + sha + ":guestbook/broken.yaml:"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace fleetwave::cli
