// A Transport for unit tests: single-threaded, virtual time, scripted responses. Requests
// wait in `requests()` until the test answers them; timers fire only when the test advances
// the clock. Nothing here sleeps or opens a socket. Not thread-safe (one test thread).
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "cluster-clients/clock.h"
#include "cluster-clients/transport.h"

namespace fleetwave::clients::testing {

class FakeTransport final : public Transport {
 public:
  struct Pending {
    RequestId id;
    HttpRequest request;
    HttpHandlers handlers;
    SteadyTime started;
    bool headers_sent = false;
  };

  SteadyTime Now() const override { return clock_.Now(); }
  void Post(std::function<void()> fn) override { posted_.push_back(std::move(fn)); }
  TimerId RunAt(SteadyTime when, std::function<void()> fn) override {
    const TimerId id = next_id_++;
    timers_.emplace(std::make_pair(when, id), std::move(fn));
    return id;
  }
  void CancelTimer(TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it)
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
  }
  RequestId Start(HttpRequest request, HttpHandlers handlers) override {
    const RequestId id = next_id_++;
    // "Sent" here, so asked here (HttpRequest::send_refusal); refused: ends unsent, later.
    if (request.send_refusal) {
      if (std::string why = request.send_refusal(); !why.empty()) {
        HttpResponse r;
        r.error = NetError::kNotSent;
        r.error_message = std::move(why);
        Post([done = std::move(handlers.on_done), r] {
          if (done) done(r);
        });
        return id;
      }
    }
    pending_[id] = Pending{id, std::move(request), std::move(handlers), Now()};
    log_.push_back(pending_[id].request);
    return id;
  }
  void Cancel(RequestId id) override { pending_.erase(id); }
  std::size_t InFlight() const override { return pending_.size(); }

  // Runs posted tasks and due timers until nothing is left to do now.
  void RunUntilIdle() {
    for (;;) {
      if (!posted_.empty()) {
        auto fn = std::move(posted_.front());
        posted_.pop_front();
        fn();
        continue;
      }
      if (!timers_.empty() && timers_.begin()->first.first <= Now()) {
        auto node = timers_.extract(timers_.begin());
        node.mapped()();
        continue;
      }
      return;
    }
  }
  // Moves virtual time forward, firing timers in order.
  void Advance(Duration d) {
    const SteadyTime end = Now() + d;
    RunUntilIdle();
    while (!timers_.empty() && timers_.begin()->first.first <= end) {
      clock_.Advance(timers_.begin()->first.first - Now());
      RunUntilIdle();
    }
    clock_.Advance(end - Now());
    RunUntilIdle();
  }
  // Time until the next timer (for tests that check a computed delay).
  std::optional<Duration> NextTimerIn() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first.first - Now();
  }

  // Outstanding requests, oldest first.
  std::vector<RequestId> Outstanding() const {
    std::vector<RequestId> out;
    for (const auto& [id, p] : pending_) out.push_back(id);
    return out;
  }
  const Pending& Get(RequestId id) const { return pending_.at(id); }
  // The oldest outstanding request (fails loudly if none).
  RequestId Oldest() const { return pending_.begin()->first; }

  void Respond(RequestId id, int status, std::string body, std::string retry_after = "") {
    auto node = pending_.extract(id);
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.retry_after = std::move(retry_after);
    node.mapped().handlers.on_done(std::move(r));
    RunUntilIdle();
  }
  void Fail(RequestId id, NetError error, std::string message = "fake failure") {
    auto node = pending_.extract(id);
    HttpResponse r;
    r.error = error;
    r.error_message = std::move(message);
    node.mapped().handlers.on_done(std::move(r));
    RunUntilIdle();
  }
  // Streams a chunk of a 2xx body.
  void Feed(RequestId id, std::string_view chunk) {
    Pending& p = pending_.at(id);
    if (!p.headers_sent) {
      p.headers_sent = true;
      if (p.handlers.on_headers) p.handlers.on_headers(200);
    }
    if (pending_.count(id) && p.handlers.on_data) p.handlers.on_data(chunk);
    RunUntilIdle();
  }
  // Ends a 2xx stream normally.
  void EndStream(RequestId id) { Respond(id, 200, ""); }

  const std::vector<HttpRequest>& log() const { return log_; }

 private:
  FakeClock clock_;
  std::deque<std::function<void()>> posted_;
  std::map<std::pair<SteadyTime, TimerId>, std::function<void()>> timers_;
  std::map<RequestId, Pending> pending_;
  std::vector<HttpRequest> log_;
  std::uint64_t next_id_ = 1;
};

}  // namespace fleetwave::clients::testing
