#include "tools/fleetwave/service_heartbeat.h"

#include <caf/all.hpp>

#include "actors/atoms.h"

namespace fleetwave::cli {

ServiceHeartbeat::ServiceHeartbeat(caf::actor_system& system, actors::HeartbeatTarget target,
                                   std::chrono::milliseconds period, bool ping,
                                   std::function<void()> on_alive, std::function<void()> on_tick)
    : ServiceHeartbeat(
          system, [target = std::move(target)] { return target; }, period, ping,
          std::move(on_alive), std::move(on_tick)) {}

ServiceHeartbeat::ServiceHeartbeat(caf::actor_system& system,
                                   std::function<actors::HeartbeatTarget()> target,
                                   std::chrono::milliseconds period, bool ping,
                                   std::function<void()> on_alive, std::function<void()> on_tick)
    : period_(period),
      ping_(ping),
      on_alive_(std::move(on_alive)),
      on_tick_(std::move(on_tick)),
      target_(std::move(target)) {
  thread_ = std::thread([this, &system] { Loop(&system); });
}

ServiceHeartbeat::~ServiceHeartbeat() { Stop(); }

void ServiceHeartbeat::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ServiceHeartbeat::Loop(caf::actor_system* system) {
  caf::scoped_actor self{*system};
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    next += period_;
    if (ping_) {
      bool answered = false;
      // The reply travels through the coordinator's mailbox and a scheduler thread: no reply
      // within the period means the actor system is not making progress.
      const actors::HeartbeatTarget target = target_();
      self->request(target, period_, actors::ping_atom::value)
          .receive([&](actors::ping_atom) { answered = true; }, [&](caf::error&) {});
      if (answered && on_alive_) on_alive_();
    }
    if (on_tick_) on_tick_();
    std::unique_lock<std::mutex> lock(mu_);
    // A missed period (a slow ping) starts the next one now rather than bursting to catch up.
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    if (cv_.wait_until(lock, next, [this] { return stop_; })) break;
  }
}

struct SchedulerWedge::Latch {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  size_t blocked = 0;
};

SchedulerWedge::SchedulerWedge(caf::actor_system& system, size_t threads,
                               std::function<void(const std::string&)> log)
    : system_(system), threads_(threads), log_(std::move(log)) {}

SchedulerWedge::~SchedulerWedge() {
  if (latch_) Toggle();
}

void SchedulerWedge::Toggle() {
  if (latch_) {
    {
      std::lock_guard<std::mutex> lock(latch_->mu);
      latch_->released = true;
    }
    latch_->cv.notify_all();
    latch_.reset();
    log_("test hook: scheduler released");
    return;
  }
  latch_ = std::make_shared<Latch>();
  log_("test hook: wedging all " + std::to_string(threads_) + " scheduler threads");
  for (size_t i = 0; i < threads_; ++i) {
    // Spawned with an argument: CAF 0.17 dereferences a null argument tuple when a function
    // actor takes none, which UBSan reports (seen in the ASan+UBSan run of this test).
    auto blocker = system_.spawn(
        [](caf::event_based_actor* self, size_t) -> caf::behavior {
          return {[self](actors::run_atom, const actors::RunClosure& fn) {
            (*fn)();
            self->quit();
          }};
        },
        i);
    auto latch = latch_;
    auto log = log_;
    const size_t total = threads_;
    caf::anon_send(blocker, actors::run_atom::value,
                   std::make_shared<std::function<void()>>([latch, log, total] {
                     std::unique_lock<std::mutex> lock(latch->mu);
                     const size_t n = ++latch->blocked;
                     log("test hook: scheduler thread blocked (" + std::to_string(n) + " of " +
                         std::to_string(total) + ")");
                     latch->cv.wait(lock, [&] { return latch->released; });
                   }));
  }
}

}  // namespace fleetwave::cli
