#include "api/api_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using engine::Json;
using testing::ApiServerFixture;
using testing::Http;
using testing::HttpResult;
using testing::RawHttp;

Json Body(const HttpResult& r) { return Json::parse(r.body, nullptr, false); }

class ApiServerTest : public ApiServerFixture {};

// Every read route with the board the fixture published: status, content type and the part of
// the body that route is about.
TEST_F(ApiServerTest, ReadRoutes) {
  Start();
  struct Case {
    std::string name;
    std::string path;
    int status;
    std::string content_type;
    std::function<void(const HttpResult&)> check;
  };
  const std::string json = "application/json";
  const std::vector<Case> cases = {
      {"Healthz", "/healthz", 200, "text/plain; charset=utf-8",
       [](const HttpResult& r) { EXPECT_EQ(r.body, "ok\n"); }},
      {"Readyz", "/readyz", 200, "text/plain; charset=utf-8",
       [](const HttpResult& r) { EXPECT_EQ(r.body, "ok\n"); }},
      {"AppSetList", "/api/v1/applicationsets", 200, json,
       [](const HttpResult& r) {
         const Json b = Body(r);
         EXPECT_EQ(b["kind"], "ApplicationSetList");
         ASSERT_EQ(b["items"].size(), 1u);
         EXPECT_EQ(b["items"][0]["metadata"]["name"], "guestbook");
         EXPECT_EQ(b["errors"], Json::array());
       }},
      {"AppSetByName", "/api/v1/applicationsets/guestbook", 200, json,
       [](const HttpResult& r) {
         EXPECT_EQ(Body(r)["metadata"]["name"], "guestbook");
         EXPECT_TRUE(Body(r)["status"].contains("applicationStatus"));
       }},
      {"AppSetMissing", "/api/v1/applicationsets/nope", 404, json,
       [](const HttpResult& r) {
         EXPECT_EQ(Body(r)["code"], 404);
         EXPECT_EQ(Body(r)["message"], "applicationset \"nope\" not found");
       }},
      {"AppListSortedByName", "/api/v1/applications", 200, json,
       [](const HttpResult& r) {
         const Json b = Body(r);
         EXPECT_EQ(b["kind"], "ApplicationList");
         ASSERT_EQ(b["items"].size(), 2u);
         EXPECT_EQ(b["items"][0]["metadata"]["name"], "guestbook-dev");
         EXPECT_EQ(b["items"][1]["metadata"]["name"], "guestbook-qa");
       }},
      {"AppByName", "/api/v1/applications/guestbook-qa", 200, json,
       [](const HttpResult& r) {
         EXPECT_EQ(Body(r)["kind"], "Application");
         EXPECT_EQ(Body(r)["status"]["sync"]["status"], "Synced");
       }},
      {"AppMissing", "/api/v1/applications/nope", 404, json,
       [](const HttpResult& r) {
         EXPECT_EQ(Body(r)["message"], "application \"nope\" not found");
       }},
      {"Clusters", "/api/v1/clusters", 200, json,
       [](const HttpResult& r) {
         EXPECT_EQ(Body(r)["items"],
                   Json::parse(R"([{"name":"dev","server":"https://dev.example:6443","up":true,
                                    "synced":true},
                                   {"name":"qa","server":"https://qa.example:6443","up":false,
                                    "synced":false}])"));
       }},
      {"QueryIgnored", "/api/v1/clusters?x=1", 200, json, [](const HttpResult&) {}},
      {"UnknownPath", "/api/v2/things", 404, json,
       [](const HttpResult& r) { EXPECT_EQ(Body(r)["message"], "no route for /api/v2/things"); }},
      {"TrailingSlashIsNoRoute", "/api/v1/applications/", 404, json, [](const HttpResult&) {}},
      {"UnknownSubresource", "/api/v1/applications/guestbook-qa/logs", 404, json,
       [](const HttpResult&) {}},
      {"RootIsTheWebView", "/", 200, "text/html; charset=utf-8", [](const HttpResult&) {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HttpResult r = Get(c.path);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(r.header("content-type"), c.content_type);
    EXPECT_EQ(r.header("content-length"), std::to_string(r.body.size()));
    c.check(r);
  }
}

TEST_F(ApiServerTest, WrongMethodIs405WithAllow) {
  Start();
  struct Case {
    std::string name, method, path, allow;
  };
  const std::vector<Case> cases = {
      {"PostHealthz", "POST", "/healthz", "GET, HEAD"},
      {"PutAppSet", "PUT", "/api/v1/applicationsets/guestbook", "GET, HEAD, DELETE"},
      {"DeleteAppSetList", "DELETE", "/api/v1/applicationsets", "GET, HEAD"},
      {"PutApps", "PUT", "/api/v1/applications", "GET, HEAD"},
      {"GetSync", "GET", "/api/v1/applications/guestbook-dev/sync", "POST"},
      {"PostClusters", "POST", "/api/v1/clusters", "GET, HEAD"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HttpResult r = Http(server_->port(), c.method, c.path);
    EXPECT_EQ(r.status, 405) << r.body;
    EXPECT_EQ(r.header("allow"), c.allow);
    EXPECT_EQ(Body(r)["code"], 405);
  }
  EXPECT_TRUE(Commands().empty());
}

TEST_F(ApiServerTest, HeadHasHeadersWithoutBody) {
  Start();
  const HttpResult get = Get("/api/v1/applications");
  const HttpResult head = Http(server_->port(), "HEAD", "/api/v1/applications");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.header("content-length"), std::to_string(get.body.size()));
}

TEST_F(ApiServerTest, ReadyzFlipsWithTheBoard) {
  Start();
  EXPECT_EQ(Get("/readyz").status, 200);
  board_.SetReady(false, "store not loaded");
  HttpResult r = Get("/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready: store not loaded\n");
  EXPECT_EQ(Get("/healthz").status, 200);  // alive while not ready
  board_.SetReady(true);
  EXPECT_EQ(Get("/readyz").status, 200);
}

TEST_F(ApiServerTest, FileErrorsAreListedWithTheSets) {
  board_.SetFileStatus("/sets/bad.yaml", "/sets/bad.yaml:3:7: unknown key \"spc\"");
  board_.SetFileStatus("/sets/good.yaml", std::nullopt);
  Start();
  const Json b = Body(Get("/api/v1/applicationsets"));
  EXPECT_EQ(b["errors"], Json::parse(R"([{"file":"/sets/bad.yaml",
                                          "message":"/sets/bad.yaml:3:7: unknown key \"spc\""}])"));
}

// The board's replace semantics as the API shows them: a republished set's gone app is 404.
TEST_F(ApiServerTest, RepublishedSetReplacesItsApps) {
  Start();
  board_.PublishAppSet("guestbook", Json{{"metadata", {{"name", "guestbook"}}}},
                       {{"guestbook-prod", AppJson("guestbook-prod")}});
  EXPECT_EQ(Get("/api/v1/applications/guestbook-dev").status, 404);
  const Json b = Body(Get("/api/v1/applications"));
  ASSERT_EQ(b["items"].size(), 1u);
  EXPECT_EQ(b["items"][0]["metadata"]["name"], "guestbook-prod");
}

TEST_F(ApiServerTest, SyncHandsTheCommandToTheHandler) {
  Start();
  struct Case {
    std::string name;
    std::string body;
    std::optional<std::string> revision;
  };
  const std::vector<Case> cases = {
      {"NoBody", "", std::nullopt},
      {"EmptyObject", "{}", std::nullopt},
      {"Revision", R"({"revision": "v1.2.3"})", "v1.2.3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t before = Commands().size();
    const HttpResult r = Sync("guestbook-dev", "s3cret-token", c.body);
    EXPECT_EQ(r.status, 202) << r.body;
    EXPECT_EQ(Body(r)["message"], "sync of guestbook-dev queued");
    const auto commands = Commands();
    ASSERT_EQ(commands.size(), before + 1);
    EXPECT_EQ(commands.back().kind, "sync");
    EXPECT_EQ(commands.back().target, "guestbook-dev");
    EXPECT_EQ(commands.back().revision, c.revision);
    EXPECT_EQ(commands.back().caller.rfind("127.0.0.1:", 0), 0u) << commands.back().caller;
  }
  // One log line per mutation, naming the caller and never the token.
  int lines = 0;
  for (const auto& line : Logs()) {
    EXPECT_EQ(line.find("s3cret-token"), std::string::npos) << line;
    if (line.find("sync of application \"guestbook-dev\" from 127.0.0.1:") != std::string::npos) {
      ++lines;
    }
  }
  EXPECT_EQ(lines, 3);
}

TEST_F(ApiServerTest, SkipPauseResumeAndAbortAreAuthenticatedCommands) {
  Start();
  struct Case {
    std::string name;
    std::string path;
    std::string token;
    std::string body;
    int status;
    std::string kind;  // of the command handed over; "" = none
    std::optional<std::string> reason;
    std::string message;  // of a refusal
  };
  const std::vector<Case> cases = {
      {"Skip", "/api/v1/applications/guestbook-qa/skip", "s3cret-token",
       R"({"reason": "qa cluster is rebuilt"})", 202, "skip", "qa cluster is rebuilt", ""},
      {"SkipWithoutReason", "/api/v1/applications/guestbook-qa/skip", "s3cret-token", "", 400, "",
       std::nullopt, "a skip needs a reason, e.g. {\"reason\": \"cluster is being rebuilt\"}"},
      {"SkipWithARevision", "/api/v1/applications/guestbook-qa/skip", "s3cret-token",
       R"({"revision": "main"})", 400, "", std::nullopt,
       "unknown field \"revision\" in request body (allowed: reason)"},
      {"SkipUnknownApp", "/api/v1/applications/nope/skip", "s3cret-token", R"({"reason": "x"})",
       404, "", std::nullopt, "application \"nope\" not found"},
      {"Pause", "/api/v1/applicationsets/guestbook/pause", "s3cret-token", "", 202, "pause",
       std::nullopt, ""},
      {"Resume", "/api/v1/applicationsets/guestbook/resume", "s3cret-token", "{}", 202, "resume",
       std::nullopt, ""},
      {"Abort", "/api/v1/applicationsets/guestbook/abort", "s3cret-token", "", 202, "abort",
       std::nullopt, ""},
      {"AbortUnknownSet", "/api/v1/applicationsets/nope/abort", "s3cret-token", "", 404, "",
       std::nullopt, "applicationset \"nope\" not found"},
      {"AbortWithABody", "/api/v1/applicationsets/guestbook/abort", "s3cret-token",
       R"({"reason": "x"})", 400, "", std::nullopt,
       "unknown field \"reason\" in request body (none allowed)"},
      {"AbortWrongToken", "/api/v1/applicationsets/guestbook/abort", "wrong", "", 401, "",
       std::nullopt, "wrong bearer token"},
      {"PauseUnknownSet", "/api/v1/applicationsets/nope/pause", "s3cret-token", "", 404, "",
       std::nullopt, "applicationset \"nope\" not found"},
      {"PauseWithABody", "/api/v1/applicationsets/guestbook/pause", "s3cret-token",
       R"({"reason": "x"})", 400, "", std::nullopt,
       "unknown field \"reason\" in request body (none allowed)"},
      {"PauseWrongToken", "/api/v1/applicationsets/guestbook/pause", "wrong", "", 401, "",
       std::nullopt, "wrong bearer token"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t before = Commands().size();
    const HttpResult r =
        Http(server_->port(), "POST", c.path, {{"Authorization", "Bearer " + c.token}}, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    const auto commands = Commands();
    if (c.kind.empty()) {
      EXPECT_EQ(commands.size(), before);
      EXPECT_EQ(Body(r)["message"], c.message);
      continue;
    }
    ASSERT_EQ(commands.size(), before + 1);
    EXPECT_EQ(commands.back().kind, c.kind);
    EXPECT_EQ(commands.back().reason, c.reason);
  }
  // GET on a mutation route is refused with the allowed method.
  EXPECT_EQ(Get("/api/v1/applicationsets/guestbook/pause").status, 405);
}

// DELETE of a set is a mutation like pause: token first, then the set must exist, then the
// command handler (which answers 202 for a set pending deletion, 409 while a file defines it).
TEST_F(ApiServerTest, DeleteOfASetIsAnAuthenticatedCommand) {
  Start();
  struct Case {
    std::string name, path, token;
    int status;
    bool handed_over;
  };
  const std::vector<Case> cases = {
      {"Delete", "/api/v1/applicationsets/guestbook", "s3cret-token", 202, true},
      {"NoToken", "/api/v1/applicationsets/guestbook", "", 401, false},
      {"WrongToken", "/api/v1/applicationsets/guestbook", "wrong", 401, false},
      {"UnknownSet", "/api/v1/applicationsets/nope", "s3cret-token", 404, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t before = Commands().size();
    std::vector<std::pair<std::string, std::string>> headers;
    if (!c.token.empty()) headers.emplace_back("Authorization", "Bearer " + c.token);
    const HttpResult r = Http(server_->port(), "DELETE", c.path, headers);
    EXPECT_EQ(r.status, c.status) << r.body;
    const auto commands = Commands();
    ASSERT_EQ(commands.size(), before + (c.handed_over ? 1 : 0));
    if (c.handed_over) {
      EXPECT_EQ(commands.back().kind, "delete");
      EXPECT_EQ(commands.back().target, "guestbook");
    }
  }
}

TEST_F(ApiServerTest, SyncChunkedBody) {
  Start();
  const std::string body = R"({"revision":"abc"})";
  char size[16];
  std::snprintf(size, sizeof(size), "%zx", body.size());
  const HttpResult r = RawHttp(server_->port(),
                               "POST /api/v1/applications/guestbook-qa/sync HTTP/1.1\r\n"
                               "Host: 127.0.0.1\r\nConnection: close\r\n"
                               "Authorization: Bearer s3cret-token\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n" +
                                   std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, 202) << r.body << r.error;
  ASSERT_EQ(Commands().size(), 1u);
  EXPECT_EQ(Commands()[0].revision, "abc");
}

TEST_F(ApiServerTest, SyncRefusals) {
  Start();
  struct Case {
    std::string name;
    std::string app;
    std::string body;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"NotJson", "guestbook-dev", "revision=main", 400,
       "request body must be a JSON object, e.g. {\"revision\": \"main\"}"},
      {"NotObject", "guestbook-dev", "[]", 400,
       "request body must be a JSON object, e.g. {\"revision\": \"main\"}"},
      {"UnknownField", "guestbook-dev", R"({"revison": "main"})", 400,
       "unknown field \"revison\" in request body (allowed: revision)"},
      {"RevisionNotString", "guestbook-dev", R"({"revision": 3})", 400,
       "revision must be a non-empty string"},
      {"RevisionEmpty", "guestbook-dev", R"({"revision": ""})", 400,
       "revision must be a non-empty string"},
      {"RevisionControlChars", "guestbook-dev", R"({"revision": "a\nb"})", 400,
       "revision must be at most 1024 characters without control characters"},
      {"DeepNesting", "guestbook-dev", std::string(100000, '[') + std::string(100000, ']'), 400,
       "request body nests too deeply"},
      {"MissingApp", "nope", "", 404, "application \"nope\" not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HttpResult r = Sync(c.app, "s3cret-token", c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(Body(r)["message"], c.message);
  }
  EXPECT_TRUE(Commands().empty());
}

TEST_F(ApiServerTest, HandlerStatusIsTheResponse) {
  result_ = {409, "guestbook-dev is already syncing"};
  Start();
  const HttpResult r = Sync("guestbook-dev", "s3cret-token");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(Body(r), Json::parse(R"({"code":409,"message":"guestbook-dev is already syncing"})"));
}

TEST_F(ApiServerTest, ThrowingCommandHandlerIs500AndServerKeepsServing) {
  throw_in_handler_ = true;
  Start();
  const HttpResult r = Sync("guestbook-dev", "s3cret-token");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(Body(r)["code"], 500);
  EXPECT_EQ(Get("/healthz").status, 200);
  bool logged = false;
  for (const auto& line : Logs()) logged |= line.find("handler bug") != std::string::npos;
  EXPECT_TRUE(logged);
}

TEST_F(ApiServerTest, OversizedBodyIs413) {
  ApiServerOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  // Refused from Content-Length alone: the body is never sent.
  HttpResult r =
      RawHttp(server_->port(),
              "POST /api/v1/applications/guestbook-dev/sync HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              "Authorization: Bearer s3cret-token\r\n"
              "Content-Length: 2097152\r\n\r\n");
  EXPECT_EQ(r.status, 413) << r.error;
  EXPECT_EQ(Body(r)["code"], 413);
  // At the limit it is read (blank: a plain sync).
  r = Sync("guestbook-dev", "s3cret-token", std::string(1024, ' '));
  EXPECT_EQ(r.status, 202) << r.body;
}

TEST_F(ApiServerTest, ConcurrentGetsWhilePublishing) {
  Start();
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread publisher([&] {
    for (int g = 0; g < 200; ++g) {
      std::map<std::string, Json> apps;
      for (int i = 0; i < 20; ++i) {
        const std::string name = "app-" + std::to_string(i);
        apps[name] = AppJson(name);
        apps[name]["status"]["generation"] = g;
      }
      board_.PublishAppSet("guestbook", Json{{"metadata", {{"name", "guestbook"}}}}, apps);
      board_.PublishCluster({"dev", "https://dev.example:6443", g % 2 == 0, true});
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      int reads = 0;
      while (!done.load() || reads < 5) {
        ++reads;
        const HttpResult r = Http(server_->port(), "GET", "/api/v1/applications");
        const Json b = Json::parse(r.body, nullptr, false);
        if (r.status != 200 || b.is_discarded() || !b["items"].is_array()) ++bad;
        const HttpResult c = Http(server_->port(), "GET", "/api/v1/clusters");
        if (c.status != 200) ++bad;
      }
    });
  }
  publisher.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  const Json b = Body(Get("/api/v1/applications"));
  ASSERT_EQ(b["items"].size(), 20u);
  EXPECT_EQ(b["items"][0]["status"]["generation"], 199);
}

TEST_F(ApiServerTest, StopClosesTheListenerAndStartsAgain) {
  Start();
  const int port = server_->port();
  server_->Stop();
  EXPECT_EQ(server_->port(), 0);
  EXPECT_NE(Http(port, "GET", "/healthz").error, "");
  ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  options.token_file = token_path_;
  options.log = [](const std::string&) {};
  ASSERT_EQ(server_->Start(options), std::nullopt);
  EXPECT_EQ(Http(server_->port(), "GET", "/healthz").status, 200);
}

TEST(ApiListenTest, ListenAddresses) {
  struct Case {
    std::string name;
    std::string listen;
    std::optional<std::string> host;
    int port;
  };
  const std::string bad = "\" (expected host:port or [ipv6]:port, e.g. 127.0.0.1:8089)";
  const std::vector<Case> cases = {
      {"IPv4", "127.0.0.1:8089", "127.0.0.1", 8089},
      {"AnyPort0", "0.0.0.0:0", "0.0.0.0", 0},
      {"LeadingZerosNormalised", "127.0.0.1:08089", "127.0.0.1", 8089},
      {"Localhost", "localhost:0", "localhost", 0},
      {"IPv6", "[::1]:8089", "::1", 8089},
      {"NoPort", "127.0.0.1", std::nullopt, 0},
      {"PortTooLarge", "127.0.0.1:65536", std::nullopt, 0},
      {"SuffixRejected", "127.0.0.1:8089s", std::nullopt, 0},
      {"ListRejected", "127.0.0.1:1,127.0.0.1:2", std::nullopt, 0},
      {"BadIPv6", "[zz]:1", std::nullopt, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    const auto got = ParseListen(c.listen, &error);
    if (c.host) {
      ASSERT_TRUE(got.has_value()) << error;
      EXPECT_EQ(got->host, *c.host);
      EXPECT_EQ(got->port, c.port);
    } else {
      EXPECT_FALSE(got.has_value());
      EXPECT_EQ(error, "invalid listen address \"" + c.listen + bad);
    }
  }
}

// IPv6 is served where the host has ::1, and refused with the reason where it has not (some
// containers): either way Start() says what happened.
TEST_F(ApiServerTest, IPv6ListenIsServedOrExplained) {
  ApiServer server(board_, nullptr);
  ApiServerOptions options;
  options.listen = "[::1]:0";
  options.log = [](const std::string&) {};
  const auto error = server.Start(options);
  if (error) {
    EXPECT_EQ(error->rfind("cannot listen on [::1]:0: ", 0), 0u) << *error;
    EXPECT_EQ(server.port(), 0);
  } else {
    EXPECT_GT(server.port(), 0);
  }
}

TEST_F(ApiServerTest, PortInUseIsAnError) {
  Start();
  ApiServer second(board_, nullptr);
  ApiServerOptions options;
  options.listen = "127.0.0.1:" + std::to_string(server_->port());
  options.log = [](const std::string&) {};
  const auto error = second.Start(options);
  ASSERT_NE(error, std::nullopt);
  EXPECT_EQ(error->rfind("cannot listen on " + options.listen + ": ", 0), 0u) << *error;
}

}  // namespace
}  // namespace fleetwave::api
