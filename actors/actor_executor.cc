#include "actors/actor_executor.h"

#include <atomic>
#include <caf/actor_addr.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>
#include <mutex>

#include "actors/atoms.h"

namespace fleetwave::actors {

struct ActorExecutor::Impl {
  std::mutex mu;
  caf::actor_addr target;  // weak: see the header
  std::atomic<long> dropped{0};
};

ActorExecutor::ActorExecutor(const RunTarget& target) : impl_(std::make_unique<Impl>()) {
  impl_->target = caf::actor_cast<caf::actor_addr>(target);
}

ActorExecutor::~ActorExecutor() = default;

void ActorExecutor::Submit(std::function<void()> fn) {
  RunTarget strong;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    strong = caf::actor_cast<RunTarget>(impl_->target);
  }
  // An exited actor's handle is invalid; an actor that exits between this check and the send
  // discards the message with its mailbox. Either way the closure never runs.
  if (!strong) {
    impl_->dropped.fetch_add(1);
    return;
  }
  caf::anon_send(strong, run_atom::value, std::make_shared<std::function<void()>>(std::move(fn)));
}

void ActorExecutor::Close() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->target = caf::actor_addr{};
}

long ActorExecutor::dropped() const { return impl_->dropped.load(); }

void RunInActor(const std::shared_ptr<std::function<void()>>& fn, const clients::LogSink& log) {
  if (fn && *fn) clients::RunCallback(*fn, log);
}

}  // namespace fleetwave::actors
