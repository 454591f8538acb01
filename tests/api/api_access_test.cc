// Opening the API beyond loopback: a read token guards every read, and a TLS request is refused
// with its reason instead of being served in plain text.
#include <fstream>
#include <string>

#include "tests/api/api_test_fixture.h"

namespace fleetwave::api::testing {
namespace {

class ApiAccessTest : public ApiServerFixture {};

TEST_F(ApiAccessTest, AReadTokenGuardsEveryApiReadButNotTheProbes) {
  const std::string read_token = dir_ + "/read-token";
  std::ofstream(read_token) << "reader-token\n";
  ApiServerOptions options;
  options.read_token_file = read_token;
  Start(options);
  const int port = server_->port();
  const HttpResult anonymous = Get("/api/v1/applications");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.header("www-authenticate"), "Bearer realm=\"fleetwave\"");
  EXPECT_EQ(Http(port, "GET", "/api/v1/applications", {{"Authorization", "Bearer wrong"}}).status,
            401);
  const HttpResult reader =
      Http(port, "GET", "/api/v1/clusters", {{"Authorization", "Bearer reader-token"}});
  EXPECT_EQ(reader.status, 200);
  EXPECT_NE(reader.body.find("https://dev.example:6443"), std::string::npos);
  // The mutation token reads too; the read token does not mutate.
  EXPECT_EQ(
      Http(port, "GET", "/api/v1/applications", {{"Authorization", "Bearer s3cret-token"}}).status,
      200);
  EXPECT_EQ(Sync("guestbook-dev", "reader-token").status, 401);
  EXPECT_TRUE(Commands().empty());
  // Probes stay open for the service manager and load balancers.
  EXPECT_EQ(Get("/healthz").status, 200);
  EXPECT_EQ(Get("/readyz").status, 200);
  bool logged = false;
  for (const auto& line : Logs()) {
    logged |= line.find("GET /api/v1/applications") != std::string::npos &&
              line.find("refused (401): missing read token") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST_F(ApiAccessTest, WithoutAReadTokenReadsAreOpen) {
  Start();
  EXPECT_EQ(Get("/api/v1/applications").status, 200);
}

// A TLS file that does not load is refused naming it: never plain HTTP where TLS was asked for.
TEST_F(ApiAccessTest, TlsFileThatDoesNotLoadIsRefusedNamingIt) {
  ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  options.token_file = token_path_;
  options.tls = TlsFiles{dir_ + "/tls.crt", dir_ + "/tls.key", ""};
  ApiServer server(board_, nullptr);
  auto error = server.Start(options);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "tls: certFile " + dir_ + "/tls.crt: No such file or directory");
  EXPECT_EQ(server.port(), 0);  // nothing listens in plain text instead
  std::ofstream(dir_ + "/tls.crt") << "not a certificate\n";
  std::ofstream(dir_ + "/tls.key") << "not a key\n";
  error = server.Start(options);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind("tls: certFile " + dir_ + "/tls.crt: not a PEM certificate chain", 0), 0u)
      << *error;
  EXPECT_EQ(server.port(), 0);
}

}  // namespace
}  // namespace fleetwave::api::testing
