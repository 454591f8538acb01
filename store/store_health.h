// Whether the state store can be used, as the daemon shows it (`/readyz`, the API's `errors`)
// and logs it: once per change, not once per failed call.
//
// The SQLite store reports the outcome of every backend call here. A failure makes the store
// unhealthy; a *sticky* one (the file is corrupt or not a database, a table is missing, the
// quick check at open failed) stays until the process restarts and makes every later call fail
// with it, so the daemon acts on nothing read from, or written to, a file it cannot trust. A
// transient failure (disk full, an I/O error) is cleared by the next call that succeeds.
//
// Thread-safety: every method may be called from any thread. Listeners are called under this
// object's lock, in order, one change at a time; they must not call back into it.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "store/store.h"

namespace fleetwave::store {

class StoreHealth {
 public:
  // `problem.ok()` when the store is usable again; otherwise its complete error text (the
  // database path and SQLite's message).
  using Listener = std::function<void(const Status& problem)>;

  // Records one call's outcome (kNotFound and kConflict are outcomes, not failures).
  void Report(const Status& outcome, bool sticky = false);
  // The sticky failure every call must return instead of touching the backend, if any.
  bool Blocked(Status* why) const;
  // The current problem (ok when healthy).
  Status Current() const;
  // Tells `listener` every later change, and the current problem at once if there is one.
  void Subscribe(Listener listener);

 private:
  mutable std::mutex mu_;
  Status problem_;
  bool sticky_ = false;
  std::vector<Listener> listeners_;
};

}  // namespace fleetwave::store
