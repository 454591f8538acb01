#include "cluster-clients/credentials.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "cluster-clients/base64.h"
#include "cluster-clients/guard.h"

namespace fleetwave::clients {
namespace {

constexpr auto kTokenFileRefresh = seconds(60);
// Refresh a plugin credential this long before it expires, so a request does not race it.
constexpr auto kExpirySkew = seconds(10);

Result CredError(std::string message) {
  return ErrorResult(Outcome::kPermanent, Problem::kCredentials, std::move(message));
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
  return s.substr(i);
}

}  // namespace

ExecRunner::ExecRunner(int max_concurrent, Duration timeout) : timeout_(timeout) {
  for (int i = 0; i < std::max(1, max_concurrent); ++i) threads_.emplace_back([this] { Work(); });
}

ExecRunner::~ExecRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ExecRunner::Run(ExecConfig exec, ClusterConfig cluster,
                     std::function<void(ExecOutcome)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{std::move(exec), std::move(cluster), std::move(done)});
  }
  cv_.notify_one();
}

int ExecRunner::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void ExecRunner::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++runs_;
    }
    // A runner thread must survive whatever a job does (an uncaught exception here would be
    // std::terminate): the job's requester gets an error instead (credentials_test.cc,
    // RunnerSurvivesAThrowingJob).
    bool answered = false;
    auto exception = RunGuarded([&] {
      ExecOutcome outcome = RunExecPlugin(job.exec, job.cluster, timeout_);
      answered = true;
      job.done(std::move(outcome));
    });
    if (!exception) continue;
    const std::string who = ExecPluginName(job.exec, job.cluster);
    std::cerr << "fleetwave: error: " << who << ": internal error: " << *exception << "\n";
    if (!answered)
      RunGuarded([&] {
        ExecOutcome failed;
        failed.error = ErrorResult(Outcome::kPermanent, Problem::kCredentials,
                                   who + ": internal error (" + *exception + ")");
        job.done(std::move(failed));
      });
  }
}

CredentialProvider::CredentialProvider(ClusterConfig cluster, ExecRunner* runner, WallClock wall)
    : cluster_(std::move(cluster)), runner_(runner), wall_(std::move(wall)) {
  if (!wall_) wall_ = [] { return std::chrono::system_clock::now(); };
}

std::shared_ptr<const Credential> CredentialProvider::FromToken(const std::string& token) const {
  auto c = std::make_shared<Credential>();
  if (!token.empty()) {
    c->authorization = "Bearer " + token;
  } else if (!cluster_.username.empty()) {
    c->authorization = "Basic " + Base64Encode(cluster_.username + ":" + cluster_.password);
  }
  return c;
}

void CredentialProvider::Get(Done done) {
  std::unique_lock<std::mutex> lock(mu_);
  const WallTime now = wall_();
  if (cluster_.exec) {
    if (cached_ && (!expiry_ || now + kExpirySkew < *expiry_)) {
      auto c = cached_;
      lock.unlock();
      done(Result{}, c);
      return;
    }
    if (auto round = running_.lock()) {  // one run at a time
      round->waiters.push_back(std::move(done));
      return;
    }
    auto round = std::make_shared<ExecRound>();
    round->waiters.push_back(std::move(done));
    running_ = round;
    lock.unlock();
    if (!runner_) {
      OnExecDone(round,
                 ExecOutcome{CredError("exec plugin configured but no runner"), {}, {}, {}, {}});
      return;
    }
    runner_->Run(*cluster_.exec, cluster_,
                 [this, round](ExecOutcome o) { OnExecDone(round, std::move(o)); });
    return;
  }
  if (!cluster_.token_file.empty()) {
    if (!cached_ || now - token_read_at_ >= kTokenFileRefresh) {
      std::ifstream f(cluster_.token_file);
      std::stringstream ss;
      ss << f.rdbuf();
      const std::string token = Trim(ss.str());
      if (!f || token.empty()) {
        // client-go keeps the last good token (or the kubeconfig's) when a re-read fails.
        if (!cached_ && cluster_.token.empty()) {
          lock.unlock();
          done(CredError("context \"" + cluster_.name + "\": cannot read tokenFile " +
                         cluster_.token_file),
               nullptr);
          return;
        }
        if (!cached_) cached_ = FromToken(cluster_.token);
      } else {
        cached_ = FromToken(token);
      }
      token_read_at_ = now;
    }
  } else if (!cached_) {
    cached_ = FromToken(cluster_.token);
  }
  auto c = cached_;
  lock.unlock();
  done(Result{}, c);
}

void CredentialProvider::OnExecDone(const std::shared_ptr<ExecRound>& round, ExecOutcome outcome) {
  std::vector<Done> waiters;
  std::shared_ptr<const Credential> cred;
  Result error = outcome.error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_.lock() == round) running_.reset();  // a Get from here on starts a new run
    waiters.swap(round->waiters);
    if (error.ok()) {
      auto c = std::make_shared<Credential>();
      if (!outcome.token.empty()) c->authorization = "Bearer " + outcome.token;
      c->client_cert_pem = std::move(outcome.client_cert_pem);
      c->client_key_pem = std::move(outcome.client_key_pem);
      cached_ = c;
      expiry_ = outcome.expiry;
      cred = c;
    }
  }
  for (auto& w : waiters) w(error, cred);
}

void CredentialProvider::Invalidate(const std::shared_ptr<const Credential>& used) {
  std::lock_guard<std::mutex> lock(mu_);
  if (used && cached_ != used) return;  // someone already refreshed it
  if (cluster_.exec || !cluster_.token_file.empty()) cached_.reset();
}

}  // namespace fleetwave::clients
