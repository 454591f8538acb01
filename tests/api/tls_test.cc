// HttpServer over TLS, judged by curl and openssl as users run them: a throwaway CA, server
// and client certificates made with `openssl` in a scratch directory; `curl --cacert` reaches
// the server, plain HTTP to it is never served, clientCAFile makes a client certificate
// required, and a rotated certificate is served by the next connections (a bad new file keeps
// the old one, logged naming the file).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/api_routes.h"
#include "api/http_server.h"
#include "tests/api/api_test_client.h"

namespace fleetwave::api {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Runs a shell command; its stdout (and stderr when `with_stderr`) and exit status.
struct ShellResult {
  int status = -1;
  std::string out;
};
ShellResult Shell(const std::string& command, bool with_stderr = false) {
  ShellResult r;
  FILE* p = ::popen((command + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  r.status = ::pclose(p);
  return r;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "fleetwave_tls_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    // The CA, two server certificates for 127.0.0.1 (first, second) and a client certificate.
    const std::string d = dir_;
    const std::string script =
        "set -e; cd " + d +
        "\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ca.key "
        "-out ca.pem\n"
        "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext\n"
        "for n in first second client; do\n"
        "  openssl req -newkey rsa:2048 -nodes -subj /CN=$n -keyout $n.key -out $n.csr\n"
        "  openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "-extfile san.ext -out $n.pem\n"
        "done\n"
        "cp first.pem server.pem; cp first.key server.key\n";
    const ShellResult made = Shell("sh -c '" + Quote(script) + "'", true);
    ASSERT_EQ(made.status, 0) << made.out;
  }

  void TearDown() override {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static std::string Quote(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    return out;
  }

  void Start(bool client_certs = false) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tls =
        TlsFiles{dir_ + "/server.pem", dir_ + "/server.key", client_certs ? dir_ + "/ca.pem" : ""};
    options.tls_check_interval = milliseconds(0);  // every accept looks at the files
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      logs_.push_back(line);
    };
    server_ = std::make_unique<HttpServer>(
        [](const ApiRequest& r) {
          ApiResponse out;
          out.content_type = "text/plain";
          out.body = r.path == "/healthz" ? "ok\n" : "path " + r.path + "\n";
          return out;
        },
        nullptr);
    const auto error = server_->Start(options);
    ASSERT_EQ(error, std::nullopt) << *error;
  }

  std::string Url(const std::string& path) {
    return "https://127.0.0.1:" + std::to_string(server_->port()) + path;
  }

  ShellResult Curl(const std::string& path, const std::string& extra = "") {
    return Shell("curl -sS --max-time 5 --cacert " + dir_ + "/ca.pem " + extra + " " + Url(path),
                 true);
  }

  // The subject CN of the certificate the server presents now.
  std::string ServedSubject() {
    return Shell("openssl s_client -connect 127.0.0.1:" + std::to_string(server_->port()) +
                 " -CAfile " + dir_ + "/ca.pem </dev/null | openssl x509 -noout -subject")
        .out;
  }

  bool Logged(const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& l : logs_) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }

  std::string dir_;
  std::unique_ptr<HttpServer> server_;
  std::mutex mu_;
  std::vector<std::string> logs_;
};

TEST_F(TlsTest, CurlWithTheCaReachesTheServerAndPlainHttpIsNeverServed) {
  Start();
  const ShellResult ok = Curl("/healthz");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(ok.out, "ok\n");
  EXPECT_EQ(Curl("/metrics").out, "path /metrics\n");
  // Without the CA the certificate is not trusted.
  const ShellResult untrusted = Shell("curl -sS --max-time 5 " + Url("/healthz"), true);
  EXPECT_NE(untrusted.status, 0) << untrusted.out;
  // Plain HTTP to the TLS listener: the handshake fails, nothing is served.
  const testing::HttpResult plain =
      testing::RawHttp(server_->port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(plain.status, 0);
  EXPECT_EQ(plain.body, "");
  const ShellResult plain_curl = Shell(
      "curl -sS --max-time 5 http://127.0.0.1:" + std::to_string(server_->port()) + "/healthz",
      true);
  EXPECT_NE(plain_curl.status, 0) << plain_curl.out;
  EXPECT_EQ(plain_curl.out.find("ok"), std::string::npos) << plain_curl.out;
  // TLS 1.1 is refused.
  const ShellResult old =
      Shell("openssl s_client -tls1_1 -connect 127.0.0.1:" + std::to_string(server_->port()) +
                " </dev/null",
            true);
  EXPECT_EQ(old.out.find("BEGIN CERTIFICATE"), std::string::npos) << old.out;
}

TEST_F(TlsTest, ClientCaFileMakesAClientCertificateRequired) {
  Start(/*client_certs=*/true);
  const ShellResult without = Curl("/healthz");
  EXPECT_NE(without.status, 0) << without.out;
  EXPECT_EQ(without.out.find("ok"), std::string::npos) << without.out;
  const ShellResult with =
      Curl("/healthz", "--cert " + dir_ + "/client.pem --key " + dir_ + "/client.key");
  EXPECT_EQ(with.status, 0) << with.out;
  EXPECT_EQ(with.out, "ok\n");
}

TEST_F(TlsTest, RotatedCertificateIsServedAndABadOneKeepsTheOld) {
  Start();
  EXPECT_NE(ServedSubject().find("CN = first"), std::string::npos);
  // A bad new file: logged naming it, the old certificate still served.
  std::ofstream(dir_ + "/server.pem.new") << "garbage\n";
  std::filesystem::rename(dir_ + "/server.pem.new", dir_ + "/server.pem");
  EXPECT_EQ(Curl("/healthz").out, "ok\n");
  EXPECT_TRUE(Logged("tls: certFile " + dir_ + "/server.pem: not a PEM certificate chain"));
  EXPECT_TRUE(Logged("still serving the certificate loaded before"));
  EXPECT_NE(ServedSubject().find("CN = first"), std::string::npos);
  // The rotation, as cert-manager or certbot does it: key and certificate replaced.
  std::filesystem::copy_file(dir_ + "/second.key", dir_ + "/server.key",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir_ + "/second.pem", dir_ + "/server.pem",
                             std::filesystem::copy_options::overwrite_existing);
  const auto deadline = Clock::now() + seconds(10);
  std::string subject;
  while (Clock::now() < deadline) {
    subject = ServedSubject();
    if (subject.find("CN = second") != std::string::npos) break;
  }
  EXPECT_NE(subject.find("CN = second"), std::string::npos) << subject;
  EXPECT_EQ(Curl("/healthz").out, "ok\n");
}

}  // namespace
}  // namespace fleetwave::api
