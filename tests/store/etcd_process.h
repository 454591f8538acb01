// Test helper: real etcd members (Debian's etcd-server) on free loopback ports, each in its own
// temporary data directory, started by the test and killed when the object goes (and, through
// PR_SET_PDEATHSIG, when the test process dies). Ready means a linearizable read is answered,
// i.e. the cluster has a leader; waited for with a bounded poll, never a fixed sleep.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd_client.h"
#include "tests/free_port.h"
#include "tests/store/child_process.h"

namespace fleetwave::store::testing {

using test_ports::FreePort;

class EtcdCluster {
 public:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
    std::string endpoint() const { return "127.0.0.1:" + std::to_string(client_port); }
  };

  // Starts `size` members and waits (bounded) for a leader. On failure `error()` says why.
  // `flags`: more etcd flags for every member ("--max-txn-ops=300"). `tls`: the clients'
  // files when the members serve https (their --cert-file etc. are in `flags`).
  explicit EtcdCluster(int size = 1, std::vector<std::string> flags = {}, EtcdTlsFiles tls = {})
      : flags_(std::move(flags)), tls_(std::move(tls)), https_(!tls_.ca_file.empty()) {
    // Another process may take a picked port before etcd binds it: then start over.
    for (int attempt = 0; attempt < 3 && !Start(size); ++attempt) Stop();
  }
  ~EtcdCluster() { Stop(); }
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::vector<Member>& members() { return members_; }
  // "127.0.0.1:A,127.0.0.1:B" (every member still running unless `all`).
  std::string Endpoints(bool all = true) const {
    std::string out;
    for (const Member& m : members_) {
      if (!all && m.pid <= 0) continue;
      out += (out.empty() ? "" : ",") + m.endpoint();
    }
    return out;
  }
  std::string Url(const std::string& prefix, bool all = true) const {
    return (https_ ? "etcds://" : "etcd://") + Endpoints(all) + prefix;
  }
  // SIGKILL, and reaps it.
  void Kill(size_t index) {
    Member& m = members_[index];
    if (m.pid <= 0) return;
    ::kill(m.pid, SIGKILL);
    ::waitpid(m.pid, nullptr, 0);
    m.pid = -1;
  }
  // The index of the member that leads now (-1 when unknown).
  int Leader() {
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].pid <= 0) continue;
      EtcdClient c(EtcdTarget{false, {members_[i].endpoint()}, "/"}, {});
      EtcdReply r = c.Call("/v3/maintenance/status", nlohmann::json::object(), true);
      if (!r.ok()) continue;
      const int64_t leader = JsonInt(r.body, "leader");
      for (size_t j = 0; j < members_.size(); ++j) {
        if (members_[j].pid <= 0) continue;
        EtcdClient cj(EtcdTarget{false, {members_[j].endpoint()}, "/"}, {});
        EtcdReply rj = cj.Call("/v3/maintenance/status", nlohmann::json::object(), true);
        if (rj.ok() && JsonInt(rj.body["header"], "member_id") == leader)
          return static_cast<int>(j);
      }
    }
    return -1;
  }

 private:
  bool Start(int size) {
    error_.clear();
    members_.clear();
    std::string initial;
    for (int i = 0; i < size; ++i) {
      Member m;
      m.name = "m" + std::to_string(i);
      m.client_port = FreePort();
      m.peer_port = FreePort();
      initial += (initial.empty() ? "" : ",") + m.name +
                 "=http://127.0.0.1:" + std::to_string(m.peer_port);
      members_.push_back(m);
    }
    for (Member& m : members_) {
      const std::string data = dir_.path() + "/" + m.name + "-" + std::to_string(m.client_port);
      const std::string client =
          (https_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(m.client_port);
      const std::string peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
      std::vector<std::string> args = {"etcd",
                                       "--name=" + m.name,
                                       "--data-dir=" + data,
                                       "--listen-client-urls=" + client,
                                       "--advertise-client-urls=" + client,
                                       "--listen-peer-urls=" + peer,
                                       "--initial-advertise-peer-urls=" + peer,
                                       "--initial-cluster=" + initial,
                                       "--initial-cluster-state=new",
                                       "--initial-cluster-token=fleetwave-test",
                                       "--logger=zap",
                                       "--log-outputs=" + data + ".log"};
      args.insert(args.end(), flags_.begin(), flags_.end());
      m.pid = ::fork();
      if (m.pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execvp("etcd", argv.data());
        ::_exit(127);
      }
    }
    // Bounded: a loaded 2-core machine elects a 3-member leader in a few seconds. Ready means
    // every member answers a linearizable read itself: a quorum answering through one member
    // would hide a member that never came up, and a test killing one of the others would then
    // leave no quorum.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    size_t ready = 0;
    EtcdReply last;
    while (std::chrono::steady_clock::now() < deadline) {
      for (Member& m : members_) {
        int status = 0;
        if (::waitpid(m.pid, &status, WNOHANG) == m.pid) {
          m.pid = -1;
          error_ = "etcd " + m.name + " exited (status " + std::to_string(status) +
                   ") before it was ready; see " + dir_.path();
          return false;
        }
      }
      while (ready < members_.size()) {
        EtcdClient probe(EtcdTarget{https_, {members_[ready].endpoint()}, "/"}, tls_,
                         EtcdClientOptions{500, 2000});
        last = probe.Call("/v3/kv/range", {{"key", Base64Encode("ready")}}, true);
        if (!last.ok()) break;
        ++ready;
      }
      if (ready == members_.size()) return true;
      // Poll interval of the readiness wait (not synchronisation: the condition is re-checked).
      ::usleep(50 * 1000);
    }
    error_ = "etcd was not ready within 60 s: " + last.status.message;
    return false;
  }
  void Stop() {
    for (size_t i = 0; i < members_.size(); ++i) Kill(i);
  }

  const std::vector<std::string> flags_;
  const EtcdTlsFiles tls_;
  const bool https_;
  TempDir dir_;
  std::vector<Member> members_;
  std::string error_;
};

}  // namespace fleetwave::store::testing
