// `fleetwave validate` and `fleetwave doctor` load a KUBECONFIG list through the same loader,
// so they accept and reject the same lists: two files defining the same cluster name
// differently (the first file wins), and a context that only the second file defines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cluster-clients/kubesim_process.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using ::testing::HasSubstr;

struct CliRun {
  int code;
  std::string out, err;
};

CliRun Validate(const std::string& config) {
  std::ostringstream out, err;
  const int code = RunValidate({config}, out, err);
  return {code, out.str(), err.str()};
}

CliRun Doctor(const std::string& config) {
  std::ostringstream out, err;
  const int code = RunDoctor({"--config", config, "-o", "json"}, out, err);
  return {code, out.str(), err.str()};
}

TEST(KubeconfigAgreementTest, ValidateAndDoctorAcceptAndRejectTheSameLists) {
  clients::testing::KubesimProcess sim;
  std::string error;
  if (!sim.Start(1, {}, &error)) FAIL() << error;
  const std::filesystem::path dir = sim.dir();
  // kubesim's file defines cluster, user and context "sim-0" with a live server.
  std::filesystem::copy_file(sim.kubeconfig(), dir / "first.yaml");
  // Redefines cluster "sim-0" with a dead server (ignored: the first file wins) and adds a
  // context only this file has, using the first file's cluster and user.
  std::ofstream(dir / "second.yaml")
      << "clusters:\n- name: sim-0\n  cluster: {server: 'https://127.0.0.1:1'}\n"
         "contexts:\n- name: only-second\n  context: {cluster: sim-0, user: sim-0}\n";
  // A context only this file has, naming a user no file defines.
  std::ofstream(dir / "broken.yaml")
      << "clusters:\n- name: sim-0\n  cluster: {server: 'https://127.0.0.1:1'}\n"
         "contexts:\n- name: only-broken\n  context: {cluster: sim-0, user: nobody}\n";
  std::ofstream(dir / "accepted.yaml") << "kubeconfig: [first.yaml, second.yaml]\n";
  std::ofstream(dir / "rejected.yaml") << "kubeconfig: [first.yaml, broken.yaml]\n";

  {
    SCOPED_TRACE("accepted: same cluster name twice, a context only in the second file");
    const CliRun v = Validate((dir / "accepted.yaml").string());
    EXPECT_EQ(v.code, 0) << v.err;
    EXPECT_EQ(v.out,
              (dir / "accepted.yaml").string() + ": valid (fleetwave configuration, 2 clusters)\n");
    const CliRun d = Doctor((dir / "accepted.yaml").string());
    EXPECT_EQ(d.code, 0) << d.out << d.err;
    EXPECT_EQ(d.err, "");
    const auto rows = nlohmann::json::parse(d.out);
    ASSERT_EQ(rows.size(), 2u);
    // Both contexts reach the live server: the second file's "sim-0" did not override.
    for (const auto& row : rows) EXPECT_EQ(row["ok"], true) << row.dump();
    EXPECT_EQ(rows[1]["cluster"], "only-second");
  }
  {
    SCOPED_TRACE("rejected: a context only in the second file names an undefined user");
    const CliRun v = Validate((dir / "rejected.yaml").string());
    const CliRun d = Doctor((dir / "rejected.yaml").string());
    EXPECT_EQ(v.code, 1);
    EXPECT_EQ(d.code, 1);
    const std::string line = (dir / "broken.yaml").string() +
                             ":5:3: contexts[0]: context \"only-broken\": user \"nobody\" is not "
                             "defined\n";
    EXPECT_EQ(v.err, line);
    EXPECT_EQ(d.err, line);
    EXPECT_EQ(v.out, "");
  }
}

}  // namespace
}  // namespace fleetwave::cli
