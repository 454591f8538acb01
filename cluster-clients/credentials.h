// Credentials for one cluster: a static token, a token file (re-read every 60 s and after a
// 401), basic auth, client certificates, or an exec credential plugin
// (client.authentication.k8s.io/v1 and v1beta1). Plugins run on `ExecRunner` threads — never
// on an I/O thread — at most `max_concurrent` at a time across all clusters, and their
// credential is cached until its expirationTimestamp (or until a 401 says it is no good).
//
// Thread-safety: `CredentialProvider` and `ExecRunner` are thread-safe. `Get` callbacks may
// run on the calling thread (cached credential) or on a runner thread (plugin run); callers
// hop back to their own thread. Credential values never appear in results or logs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster-clients/clock.h"
#include "cluster-clients/exec_plugin.h"
#include "cluster-clients/kubeconfig.h"
#include "cluster-clients/result.h"

namespace fleetwave::clients {

using WallClock = std::function<WallTime()>;

struct Credential {
  std::string authorization;                    // the Authorization header value, or empty
  std::string client_cert_pem, client_key_pem;  // from a plugin; empty = the kubeconfig's
};

// A small pool that runs plugins (exec_plugin.h) off the I/O threads with a concurrency cap.
// A job whose run or `done` throws is logged once (stderr) and answered with a credentials
// error when `done` has not run yet; the runner thread carries on.
class ExecRunner {
 public:
  explicit ExecRunner(int max_concurrent = 4, Duration timeout = seconds(30));
  ~ExecRunner();  // waits for running plugins; queued ones are dropped
  ExecRunner(const ExecRunner&) = delete;
  ExecRunner& operator=(const ExecRunner&) = delete;

  // `done` runs on a runner thread.
  void Run(ExecConfig exec, ClusterConfig cluster, std::function<void(ExecOutcome)> done);
  // Plugin runs so far (tests check caching with this).
  int runs() const;

 private:
  struct Job {
    ExecConfig exec;
    ClusterConfig cluster;
    std::function<void(ExecOutcome)> done;
  };
  void Work();

  Duration timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  int runs_ = 0;
  std::vector<std::thread> threads_;
};

class CredentialProvider {
 public:
  using Done = std::function<void(Result error, std::shared_ptr<const Credential>)>;

  // `runner` must outlive the provider when the cluster uses a plugin.
  CredentialProvider(ClusterConfig cluster, ExecRunner* runner, WallClock wall = nullptr);

  // Any thread. Calls `done` exactly once with a credential or an error (Problem kCredentials).
  void Get(Done done);
  // After a 401 with `used`: the next Get re-reads the token file or re-runs the plugin.
  // Several requests failing with the same credential cause one refresh only.
  void Invalidate(const std::shared_ptr<const Credential>& used);

 private:
  // The callers waiting on one plugin run. The run's job owns it and the provider points at
  // it only weakly: a waiter may hold the provider's owner (a ClusterClient's does), so a job
  // the runner drops unrun (it stops) must take its waiters with it, or that owner would own
  // itself and never be freed (credentials_test.cc, ADroppedRunReleasesItsWaiters).
  struct ExecRound {
    std::vector<Done> waiters;
  };

  std::shared_ptr<const Credential> FromToken(const std::string& token) const;
  void OnExecDone(const std::shared_ptr<ExecRound>& round, ExecOutcome outcome);

  const ClusterConfig cluster_;
  ExecRunner* runner_;
  WallClock wall_;

  std::mutex mu_;
  std::shared_ptr<const Credential> cached_;
  std::optional<WallTime> expiry_;    // for plugin credentials
  WallTime token_read_at_{};          // for token files
  std::weak_ptr<ExecRound> running_;  // the plugin run in progress, if any
};

}  // namespace fleetwave::clients
