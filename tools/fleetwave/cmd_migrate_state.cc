// `fleetwave migrate-state --from sqlite://PATH --to etcd://HOST:PORT/PREFIX [--force]`: moves
// an installation's state into etcd (store/etcd_migrate.h). The daemon must be stopped: the
// source is opened as `fleetwave run` opens it, so a running daemon's lock refuses the copy.
// The copy is read back from etcd and compared before it is reported done.
#include <map>
#include <ostream>
#include <string>

#include "store/etcd_migrate.h"
#include "store/etcd_store.h"
#include "store/sqlite_store.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

namespace {

constexpr const char* kUsage =
    "usage: fleetwave migrate-state --from sqlite://PATH --to etcd://HOST:PORT[,...]/PREFIX\n"
    "                               [--force] [--ca-file F --cert-file F --key-file F]\n"
    "  copies every key of the state into the etcd prefix; refuses a prefix that holds keys\n"
    "  unless --force (which deletes them first). Stop the daemon first.\n";

}  // namespace

int RunMigrateState(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"--from", "--to", "--ca-file", "--cert-file", "--key-file"},
                        {"--force"}, &error);
  if (!args || !args->positional.empty() || !args->Get("--from") || !args->Get("--to")) {
    if (!error.empty()) err << "fleetwave migrate-state: " << error << "\n";
    err << kUsage;
    return 2;
  }
  const std::string from = *args->Get("--from");
  const std::string to = *args->Get("--to");
  if (!store::IsEtcdUrl(to)) {
    err << "fleetwave migrate-state: --to \"" << engine::ShownUrl(to)
        << "\" is not an etcd:// or etcds:// URL\n";
    return 2;
  }
  if (store::EtcdUrlResult target = store::ParseEtcdUrl(to); !target.ok()) {
    err << "fleetwave migrate-state: --to: " << target.status.message << "\n";
    return 2;
  }
  if (store::IsEtcdUrl(from)) {
    err << "fleetwave migrate-state: --from must be the current store (sqlite://PATH), not etcd\n";
    return 2;
  }
  const store::EtcdTlsFiles tls{args->Get("--ca-file").value_or(""),
                                args->Get("--cert-file").value_or(""),
                                args->Get("--key-file").value_or("")};
  store::OpenResult source = store::OpenStore(from);
  if (!source.ok()) {
    err << "fleetwave migrate-state: " << source.status.message << "\n";
    return 1;
  }
  store::ListResult all = source.store->List("");
  if (!all.ok()) {
    err << "fleetwave migrate-state: " << from << ": " << all.status.message << "\n";
    return 1;
  }
  store::MigrateResult copied = store::CopyIntoEtcd(all.entries, to, tls, args->Has("--force"));
  if (!copied.ok()) {
    err << "fleetwave migrate-state: " << copied.status.message << "\n";
    return 1;
  }
  // Read back through the store the daemon will use.
  store::OpenResult target = store::OpenStore(to, store::OpenOptions{.etcd_tls = tls});
  if (!target.ok()) {
    err << "fleetwave migrate-state: the copy cannot be opened: " << target.status.message << "\n";
    return 1;
  }
  store::ListResult back = target.store->List("");
  std::map<std::string, std::string> want, got;
  for (const auto& e : all.entries) want[e.key] = e.value;
  for (const auto& e : back.entries) got[e.key] = e.value;
  if (!back.ok() || want != got) {
    err << "fleetwave migrate-state: " << target.database
        << ": the copy read back differs from the source ("
        << (back.ok()
                ? std::to_string(got.size()) + " keys, " + std::to_string(want.size()) + " expected"
                : back.status.message)
        << ")\n";
    return 1;
  }
  out << "migrate-state: copied " << copied.keys << " keys (" << copied.bytes << " bytes) from "
      << from << " (revision " << all.revision << ") to " << target.database << " in "
      << copied.transactions << " transactions";
  if (copied.replaced > 0) out << ", replacing " << copied.replaced << " keys";
  out << "; read back and verified\n";
  return 0;
}

}  // namespace fleetwave::cli
