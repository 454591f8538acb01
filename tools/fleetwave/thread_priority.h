// The daemon's threads that run long computations (CAF's workers: decisions over whole sets;
// the blocking pool: git, renders, store commits) run below the cluster client's I/O thread,
// so a full core still answers TLS handshakes and reads watch streams in time. At 2,000
// clusters on one core, reconciles starved the I/O thread until handshakes timed out and
// clusters flapped, and every flap re-reconciled the sets (docs/benchmarks.md). The I/O thread
// waits on its sockets most of the time, so the others lose nothing while the core has room.
//
// Linux keeps a nice value per thread: raising the calling thread's needs no privilege.
#pragma once

#include <caf/thread_hook.hpp>

namespace fleetwave::cli {

// Nice steps between the I/O thread (the process's own value) and the background threads:
// about 10:1 in CPU share while both want the core.
inline constexpr int kBackgroundNiceSteps = 10;

// Raises the calling thread's nice value by `steps` (capped at 19). False when the system
// refuses; the thread then keeps its priority, which is only slower under load.
bool LowerThisThreadsPriority(int steps);

// Does that for every thread the actor system starts.
class BackgroundThreadsHook final : public caf::thread_hook {
 public:
  void init(caf::actor_system&) override {}
  void thread_started() override;
  void thread_terminates() override {}
};

}  // namespace fleetwave::cli
