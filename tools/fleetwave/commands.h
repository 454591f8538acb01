// The fleetwave subcommands. Each takes its arguments (without the subcommand name) and
// writes to the given streams, so tests run exactly what the binary runs. Each returns the
// process exit code: 0 success, 1 problems found in the input, 2 usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace fleetwave::cli {

using Argv = std::vector<std::string>;

int RunValidate(const Argv& args, std::ostream& out, std::ostream& err);
int RunGenerate(const Argv& args, std::ostream& out, std::ostream& err);
int RunRender(const Argv& args, std::ostream& out, std::ostream& err);
int RunPlan(const Argv& args, std::ostream& out, std::ostream& err);
int RunProgress(const Argv& args, std::ostream& out, std::ostream& err);
int RunHealth(const Argv& args, std::ostream& out, std::ostream& err);
int RunDoctor(const Argv& args, std::ostream& out, std::ostream& err);
int RunDaemon(const Argv& args, std::ostream& out, std::ostream& err);
// Copies the state into etcd (cmd_migrate_state.cc).
int RunMigrateState(const Argv& args, std::ostream& out, std::ostream& err);
// Clients of a running daemon's API (cmd_get.cc, cmd_client.cc).
int RunGet(const Argv& args, std::ostream& out, std::ostream& err);
int RunSync(const Argv& args, std::ostream& out, std::ostream& err);
int RunSkip(const Argv& args, std::ostream& out, std::ostream& err);
int RunPause(const Argv& args, std::ostream& out, std::ostream& err);
int RunResume(const Argv& args, std::ostream& out, std::ostream& err);
int RunAbort(const Argv& args, std::ostream& out, std::ostream& err);
int RunRollback(const Argv& args, std::ostream& out, std::ostream& err);
int RunDelete(const Argv& args, std::ostream& out, std::ostream& err);
int RunRefresh(const Argv& args, std::ostream& out, std::ostream& err);

}  // namespace fleetwave::cli
