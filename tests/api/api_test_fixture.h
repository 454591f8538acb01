// A started ApiServer on 127.0.0.1:0 over a board with one set, two Applications and two
// clusters, a token file in a scratch directory, a fake clock for the token refresh, and a
// command handler that records what it was given.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "actors/status_board.h"
#include "api/api_server.h"
#include "tests/api/api_test_client.h"

namespace fleetwave::api::testing {

using actors::StatusBoard;

class ApiServerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "fleetwave_api_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    token_path_ = dir_ + "/api-token";
    WriteToken("s3cret-token\n");
    board_.SetReady(true);
    board_.PublishAppSet(
        "guestbook",
        engine::Json{{"metadata", {{"name", "guestbook"}}},
                     {"status", {{"applicationStatus", engine::Json::array()}}}},
        {{"guestbook-qa", AppJson("guestbook-qa")}, {"guestbook-dev", AppJson("guestbook-dev")}});
    board_.PublishCluster({"dev", "https://dev.example:6443", true, true});
    board_.PublishCluster({"qa", "https://qa.example:6443", false, false});
  }

  void TearDown() override {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static engine::Json AppJson(const std::string& name) {
    return engine::Json{{"apiVersion", "argoproj.io/v1alpha1"},
                        {"kind", "Application"},
                        {"metadata", {{"name", name}}},
                        {"status", {{"sync", {{"status", "Synced"}}}}}};
  }

  void WriteToken(const std::string& content) {
    std::ofstream(token_path_, std::ios::trunc) << content;
  }

  // Starts the server; options default to this fixture's token file, clock and log.
  void Start(ApiServerOptions options = {}) {
    options.listen = options.listen == "127.0.0.1:8089" ? "127.0.0.1:0" : options.listen;
    if (options.token_file.empty()) options.token_file = token_path_;
    options.clock = [this] { return base_ + std::chrono::seconds(clock_seconds_.load()); };
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      logs_.push_back(line);
    };
    server_ = std::make_unique<ApiServer>(board_, [this](const ApiCommand& c) {
      std::lock_guard<std::mutex> lock(mu_);
      commands_.push_back(c);
      if (throw_in_handler_) throw std::runtime_error("handler bug");
      return result_;
    });
    auto error = server_->Start(options);
    ASSERT_EQ(error, std::nullopt) << *error;
    ASSERT_GT(server_->port(), 0);
  }

  HttpResult Get(const std::string& path) { return Http(server_->port(), "GET", path); }

  HttpResult Sync(const std::string& app, const std::string& token, const std::string& body = "") {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
    return Http(server_->port(), "POST", "/api/v1/applications/" + app + "/sync", headers, body);
  }

  std::vector<std::string> Logs() {
    std::lock_guard<std::mutex> lock(mu_);
    return logs_;
  }
  std::vector<ApiCommand> Commands() {
    std::lock_guard<std::mutex> lock(mu_);
    return commands_;
  }

  std::string dir_;
  std::string token_path_;
  StatusBoard board_;
  std::unique_ptr<ApiServer> server_;
  const std::chrono::steady_clock::time_point base_{std::chrono::hours(1000)};
  std::atomic<long long> clock_seconds_{0};
  std::mutex mu_;
  std::vector<std::string> logs_;
  std::vector<ApiCommand> commands_;
  ApiCommandResult result_{202, "sync of guestbook-dev queued"};
  bool throw_in_handler_ = false;
};

}  // namespace fleetwave::api::testing
