// `fleetwave validate` on a file that is neither an ApplicationSet nor a fleetwave
// configuration says so in one line.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/sources/git_repo.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

TEST(ValidateForeignCli, AConfigMapIsNamedInOneLine) {
  sources::testing::TempDir dir;
  const std::string file = dir.path() + "/cm.yaml";
  sources::testing::WriteFile(file,
                              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                              "data: {a: b}\n");
  std::ostringstream out, err;
  EXPECT_EQ(RunValidate({file}, out, err), 1);
  EXPECT_EQ(err.str(), file +
                           ":1:1: neither an ApplicationSet nor a fleetwave configuration (kind: "
                           "ConfigMap)\n");
}

}  // namespace
}  // namespace fleetwave::cli
