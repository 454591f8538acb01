// Issue 30: whatever a reload throws never freezes the configuration. A load that throws
// answers the coordinator with an error (on the configuration, in the API), and the next
// reload takes effect; a file's error leaves the API once the file is fixed or removed; every
// failure is counted as degraded.
#include <gtest/gtest.h>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/coordinator.h"
#include "actors/services.h"
#include "engine/appset/appset.h"
#include "engine/yaml_json.h"
#include "sources/fake_source.h"
#include "store/memory_store.h"

namespace fleetwave::actors {
namespace {

constexpr const char* kConfig = "/etc/fleetwave/fleetwave.yaml";

// A git source whose every resolve throws, as a library bug would: the gather of every set
// fails, and its error is shown under the set's file (issue 30).
class ThrowingSource final : public sources::Source {
 public:
  std::optional<engine::Error> Fetch(const std::string&) override {
    throw std::runtime_error("libgit2 bug");
  }
  sources::Resolution Resolve(const std::string&, const std::string&) override {
    throw std::runtime_error("libgit2 bug");
  }
  sources::ReadResult Read(const sources::Snapshot&, const std::string&) override {
    throw std::runtime_error("libgit2 bug");
  }
};

// One ApplicationSet with a git generator-free list of one element, defined in `file`.
engine::ApplicationSet SetOf(const std::string& file) {
  const std::string yaml = R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web}
spec:
  goTemplate: true
  generators: [{list: {elements: [{cluster: dev}]}}]
  template:
    metadata: {name: 'web-{{.cluster}}'}
    spec:
      project: default
      source: {repoURL: file:///repo.git, targetRevision: main, path: web}
      destination: {name: '{{.cluster}}', namespace: shop}
)";
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(yaml, file);
  engine::DecodedApplicationSet d = engine::DecodeApplicationSet(docs.documents.at(0), file);
  EXPECT_TRUE(d.issues.empty());
  return *d.appset;
}

DaemonInputs Inputs(std::map<std::string, AppSetFile> files) {
  DaemonInputs in;
  in.config_path = kConfig;
  in.files = std::move(files);
  return in;
}

AppSetFile Bad(const std::string& error) {
  AppSetFile f;
  f.errors = {error};
  return f;
}

class CoordinatorReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.store = &store_;
    services_.source = &source_;
    services_.pool = &pool_;
    services_.now = [] { return engine::FromUnixSeconds(1'800'000'000); };
    services_.log = [this](const std::string& line) { log_.push_back(line); };
    services_.publish.file = [this](const std::string& file, const std::vector<std::string>& e) {
      files_[file] = e;
    };
    services_.publish.reloaded = [this](uint64_t ticket, bool ok) {
      reloads_.emplace_back(ticket, ok);
    };
    services_.publish.degraded = [this](const std::string& reason) { ++degraded_[reason]; };
    cfg_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  }
  void Start(DaemonInputs initial) {
    CoordinatorConfig config;
    config.services = &services_;
    config.initial = std::move(initial);
    config.load = [this] { return load_(); };
    coordinator_ = SpawnCoordinator(*system_, config);
    sched_->run();
  }
  void Reload(uint64_t ticket) {
    caf::anon_send(coordinator_, reload_atom::value, ticket);
    sched_->run();
  }
  void TearDown() override {
    if (coordinator_) caf::anon_send(coordinator_, stop_atom::value);
    sched_->run();
  }
  // The API's `errors`: the files published with a non-empty list, last publication wins.
  std::vector<std::string> ErrorFiles() const {
    std::vector<std::string> out;
    for (const auto& [file, e] : files_) {
      if (!e.empty()) out.push_back(file);
    }
    return out;
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  store::MemoryStore store_;
  sources::FakeSource source_;
  ThrowingSource throwing_source_;
  // The daemon counts a job that threw as degraded{reason="internal"}.
  BlockingPool pool_{0, nullptr, nullptr, [this] { ++degraded_["internal"]; }};
  Services services_;
  CoordinatorActor coordinator_;
  std::function<DaemonInputs()> load_;
  std::vector<std::string> log_;
  std::map<std::string, std::vector<std::string>> files_;
  std::vector<std::pair<uint64_t, bool>> reloads_;
  std::map<std::string, int> degraded_;
};

TEST_F(CoordinatorReloadTest, ALoadThatThrowsIsAnErrorAndTheNextReloadTakesEffect) {
  Start(Inputs({{"/a/good.yaml", AppSetFile{}}}));
  load_ = []() -> DaemonInputs {
    throw std::runtime_error("[json.exception.type_error.302] type must be string");
  };
  Reload(1);
  ASSERT_EQ(reloads_.size(), 1u) << "a load that threw never answered the coordinator";
  EXPECT_EQ(reloads_[0], std::make_pair(uint64_t{1}, false));
  ASSERT_FALSE(files_[kConfig].empty()) << "the failure is not shown in the API's errors";
  EXPECT_NE(files_[kConfig][0].find("type_error.302"), std::string::npos) << files_[kConfig][0];
  EXPECT_EQ(degraded_["internal"], 1);
  EXPECT_EQ(degraded_["file"], 0) << "a load that threw is no bad file";

  // The next reload (the file fixed, or a kubeconfig change) takes effect.
  load_ = [] { return Inputs({{"/a/good.yaml", AppSetFile{}}, {"/a/new.yaml", AppSetFile{}}}); };
  Reload(2);
  ASSERT_EQ(reloads_.size(), 2u) << "the reload after a failed one was never done";
  EXPECT_EQ(reloads_[1], std::make_pair(uint64_t{2}, true));
  EXPECT_TRUE(files_.count("/a/new.yaml")) << "the second reload did not read the files";
  EXPECT_TRUE(files_[kConfig].empty()) << "the load's error stays after a good reload";
}

TEST_F(CoordinatorReloadTest, ABadFilesErrorLeavesTheApiWhenTheFileIsFixedOrRemoved) {
  Start(Inputs({{"/a/good.yaml", AppSetFile{}},
                {"/a/bad.yaml", Bad("/a/bad.yaml:3:9: metadata.name: wrong type")},
                {"/a/worse.yaml", Bad("/a/worse.yaml: not a regular file")}}));
  EXPECT_EQ(ErrorFiles(), (std::vector<std::string>{"/a/bad.yaml", "/a/worse.yaml"}));
  EXPECT_EQ(degraded_["file"], 2);

  load_ = [] { return Inputs({{"/a/good.yaml", AppSetFile{}}, {"/a/bad.yaml", AppSetFile{}}}); };
  Reload(1);
  EXPECT_TRUE(ErrorFiles().empty()) << "still in errors: " << ErrorFiles().size();
  EXPECT_EQ(degraded_["file"], 2) << "a file that stays bad is counted once, not per reload";
}

TEST_F(CoordinatorReloadTest, AFileThatStaysBadIsCountedOnceAndReloadsGoOn) {
  Start(Inputs({{"/a/bad.yaml", Bad("/a/bad.yaml: wrong")}}));
  load_ = [] { return Inputs({{"/a/bad.yaml", Bad("/a/bad.yaml: wrong")}}); };
  for (uint64_t t = 1; t <= 3; ++t) Reload(t);
  ASSERT_EQ(reloads_.size(), 3u);
  EXPECT_EQ(reloads_.back(), std::make_pair(uint64_t{3}, false));
  EXPECT_EQ(degraded_["file"], 1);
}

// Issue 31: a removed file takes every error shown under it out of the API, the one its set's
// failed gather published too, and the set's actor (kept to mark the set PendingDeletion) does
// not bring it back at its next failed gather.
TEST_F(CoordinatorReloadTest, ARemovedFilesSetErrorLeavesTheApiAndStaysGone) {
  services_.source = &throwing_source_;
  std::vector<std::string> removed;
  services_.publish.file_removed = [&removed](const std::string& file) { removed.push_back(file); };
  AppSetFile web;
  web.appsets.push_back(SetOf("/a/web.yaml"));
  DaemonInputs initial = Inputs({{"/a/web.yaml", web}, {"/a/other.yaml", AppSetFile{}}});
  initial.clusters = {{"dev", "https://dev.example", {}}};
  Start(initial);
  ASSERT_EQ(ErrorFiles(), std::vector<std::string>{"/a/web.yaml"})
      << "the failed gather is not shown under its file; log: " << ::testing::PrintToString(log_);

  load_ = [] {
    DaemonInputs in = Inputs({{"/a/other.yaml", AppSetFile{}}});
    in.clusters = {{"dev", "https://dev.example", {}}};
    return in;
  };
  Reload(1);
  EXPECT_TRUE(ErrorFiles().empty()) << "still in errors: " << ErrorFiles().at(0);
  EXPECT_EQ(removed, std::vector<std::string>{"/a/web.yaml"});
  // The set's actor gathers again (a refresh, its poll): the error is logged, not shown.
  caf::anon_send(coordinator_, refresh_atom::value, std::string("test"));
  sched_->run();
  EXPECT_TRUE(ErrorFiles().empty()) << "back in errors: " << ErrorFiles().at(0);
}

}  // namespace
}  // namespace fleetwave::actors
