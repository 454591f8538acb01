// The systemd watchdog's heartbeat, and a test-only way to wedge the actor scheduler.
//
// ServiceHeartbeat: every `period` its thread asks the target actor (the coordinator) for a
// ping_atom reply with a timeout of one period, through a caf::scoped_actor. Only an answer
// counts: `on_alive` (WATCHDOG=1) runs when the reply came back, so a scheduler whose threads
// are all stuck, or a coordinator stuck in a handler, stops the pings and systemd restarts the
// service after WatchdogSec. `on_tick` runs every period either way (STATUS= refresh).
//
// SchedulerWedge: the honest fault for that rule's test. Toggle() either blocks every CAF
// scheduler thread (one throwaway actor per thread, each blocking in its handler until
// released — exactly what a handler doing blocking I/O would do) or releases them. The daemon
// arms it only when FLEETWAVE_TEST_WEDGE=1 is in its environment, and SIGUSR1 toggles it
// (tests/systemd/notify_socket_test.py). Without that variable SIGUSR1 keeps its default action.
//
// Thread-safety: constructed, stopped and destroyed on one thread (the daemon's main thread);
// both must be stopped/destroyed before the actor system.
#pragma once

#include <caf/fwd.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/coordinator_interface.h"

namespace fleetwave::cli {

class ServiceHeartbeat {
 public:
  ServiceHeartbeat(caf::actor_system& system, actors::HeartbeatTarget target,
                   std::chrono::milliseconds period, bool ping, std::function<void()> on_alive,
                   std::function<void()> on_tick);
  // The actor asked is `target()`'s at each ping (leader election: the coordinator of the term
  // this instance leads, or a standby's stand-in).
  ServiceHeartbeat(caf::actor_system& system, std::function<actors::HeartbeatTarget()> target,
                   std::chrono::milliseconds period, bool ping, std::function<void()> on_alive,
                   std::function<void()> on_tick);
  ~ServiceHeartbeat();
  ServiceHeartbeat(const ServiceHeartbeat&) = delete;
  ServiceHeartbeat& operator=(const ServiceHeartbeat&) = delete;

  // Ends the thread (waits for an in-flight ping, at most one period).
  void Stop();

 private:
  void Loop(caf::actor_system* system);

  std::chrono::milliseconds period_;
  bool ping_;
  std::function<void()> on_alive_;
  std::function<void()> on_tick_;
  std::function<actors::HeartbeatTarget()> target_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

class SchedulerWedge {
 public:
  SchedulerWedge(caf::actor_system& system, size_t threads,
                 std::function<void(const std::string&)> log);
  ~SchedulerWedge();  // releases
  // Wedges the scheduler, or releases it when wedged.
  void Toggle();

 private:
  struct Latch;
  caf::actor_system& system_;
  size_t threads_;
  std::function<void(const std::string&)> log_;
  std::shared_ptr<Latch> latch_;  // set while wedged
};

}  // namespace fleetwave::cli
