// The bridge from client callbacks into an actor's mailbox: a `clients::Executor` whose
// Submit(fn) sends `(run_atom, RunClosure)` to one actor, which runs the closure in its own
// context (RunInActor below). So the callbacks of a ClusterClient or Informer mutate the
// actor's state like any other message: in order, one at a time, without locks.
//
// The executor holds only a weak reference to the actor (the actor usually owns the
// executor; a strong one would keep it alive forever). Once the actor has exited, or after
// Close(), submissions are dropped: the closure never runs and is destroyed on the submitting
// thread, or with the mailbox when the actor exits while it is queued
// (actor_executor_test.cc, DropsSubmissionsAfterTheActorExits).
//
// Thread-safety: Submit and Close may be called from any thread.
#pragma once

#include <caf/typed_actor.hpp>
#include <functional>
#include <memory>
#include <string>

#include "actors/atoms.h"
#include "cluster-clients/executor.h"

namespace fleetwave::actors {

// What an executor's target understands: closures to run.
using RunTarget = caf::typed_actor<caf::reacts_to<run_atom, RunClosure>>;

class ActorExecutor final : public clients::Executor {
 public:
  explicit ActorExecutor(const RunTarget& target);
  ~ActorExecutor() override;
  ActorExecutor(const ActorExecutor&) = delete;
  ActorExecutor& operator=(const ActorExecutor&) = delete;

  void Submit(std::function<void()> fn) override;
  // Later submissions are dropped (the owner is going away).
  void Close();
  // Submissions that found no actor to run them (diagnostics and tests).
  long dropped() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What an actor's run_atom handler does with the closure: runs it; an exception escaping it
// goes to `log` (stderr when null) and the actor keeps going (a bug costs one callback).
void RunInActor(const std::shared_ptr<std::function<void()>>& fn, const clients::LogSink& log);

}  // namespace fleetwave::actors
