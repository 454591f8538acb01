// DecodeExecCredential alone: a finished plugin run (exit status, stdout, stderr) in, a
// credential or an error naming the plugin, the context and the field out. No process runs.
#include "cluster-clients/exec_plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fleetwave::clients {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char* kV1 = "client.authentication.k8s.io/v1";

PluginRun Exited(int code, std::string out, std::string err = "") {
  PluginRun run;
  run.finished = true;
  run.exited = true;
  run.exit_code = code;
  run.out = std::move(out);
  run.err = std::move(err);
  return run;
}

std::string Credential(const std::string& status) {
  return R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":)" +
         status + "}";
}

class DecodeTest : public ::testing::Test {
 protected:
  ExecOutcome Decode(const PluginRun& run) {
    ExecConfig exec;
    exec.api_version = kV1;
    exec.command = "get-token";
    ClusterConfig cluster;
    cluster.name = "prod";
    return DecodeExecCredential(run, exec, cluster, seconds(30));
  }
};

TEST_F(DecodeTest, TokenCertificateAndExpiry) {
  ExecOutcome o = Decode(Exited(
      0, Credential(R"({"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"})") + "\n"));
  ASSERT_TRUE(o.error.ok()) << o.error.ToString();
  EXPECT_EQ(o.token, "t");
  ASSERT_TRUE(o.expiry.has_value());
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*o.expiry), 1893456000);

  o = Decode(Exited(0, Credential(R"({"clientCertificateData":"C","clientKeyData":"K"})")));
  ASSERT_TRUE(o.error.ok()) << o.error.ToString();
  EXPECT_EQ(o.client_cert_pem, "C");
  EXPECT_EQ(o.client_key_pem, "K");
  EXPECT_FALSE(o.expiry.has_value());
}

TEST_F(DecodeTest, DecodeRejectsWrongShapes) {
  struct Case {
    const char* name;
    PluginRun run;
    const char* want;
  };
  PluginRun killed;
  killed.finished = false;
  const Case cases[] = {
      {"timeout", killed, "did not finish within 30s"},
      {"exit_status", Exited(2, "", "error: log in first\nmore"),
       "exited with status 2: error: log in first"},
      {"empty", Exited(0, ""), "output is not JSON"},
      {"not_json", Exited(0, "<html>"), "output is not JSON"},
      {"a_list", Exited(0, "[1,2]"), "not an ExecCredential (not an object (an array))"},
      {"a_string", Exited(0, R"("ExecCredential")"), "not an ExecCredential (not an object"},
      {"wrong_kind", Exited(0, R"({"kind":"Secret"})"), "output is not an ExecCredential"},
      {"kind_a_number", Exited(0, R"({"kind":1})"), "kind is a number, expected a string"},
      {"wrong_api_version",
       Exited(0, R"({"kind":"ExecCredential","apiVersion":"v1alpha1","status":{"token":"x"}})"),
       "returned apiVersion \"v1alpha1\", expected \"client.authentication.k8s.io/v1\""},
      {"no_status",
       Exited(0, R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})"),
       "ExecCredential has no status"},
      {"status_null", Exited(0, Credential("null")), "ExecCredential has no status"},
      {"status_a_list", Exited(0, Credential(R"(["secret-x"])")),
       "status is an array, expected an object"},
      {"status_a_string", Exited(0, Credential(R"("secret-x")")),
       "status is a string, expected an object"},
      {"token_a_number", Exited(0, Credential(R"({"token":42})")),
       "status.token is a number, expected a string"},
      {"token_an_object", Exited(0, Credential(R"({"token":{"v":"secret-x"}})")),
       "status.token is an object, expected a string"},
      {"cert_a_bool",
       Exited(0, Credential(R"({"clientCertificateData":true,"clientKeyData":"k"})")),
       "status.clientCertificateData is a boolean, expected a string"},
      {"cert_without_key", Exited(0, Credential(R"({"clientCertificateData":"c"})")),
       "must come together"},
      {"nothing", Exited(0, Credential("{}")), "neither a token nor a certificate"},
      {"expiry_a_number", Exited(0, Credential(R"({"token":"secret-x","expirationTimestamp":5})")),
       "status.expirationTimestamp is a number, expected a string"},
      {"expiry_garbage",
       Exited(0, Credential(R"({"token":"secret-x","expirationTimestamp":"soon"})")),
       "invalid expirationTimestamp"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ExecOutcome o = Decode(c.run);
    EXPECT_FALSE(o.error.ok());
    EXPECT_EQ(o.error.outcome, Outcome::kPermanent);
    EXPECT_EQ(o.error.problem, Problem::kCredentials);
    EXPECT_THAT(o.error.message, HasSubstr("exec plugin get-token (context \"prod\")"));
    EXPECT_THAT(o.error.message, HasSubstr(c.want));
    EXPECT_THAT(o.error.message, Not(HasSubstr("secret-x")));
    EXPECT_EQ(o.token, "");  // a rejected answer hands out nothing
  }
}

}  // namespace
}  // namespace fleetwave::clients
