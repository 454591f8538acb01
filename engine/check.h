// FLEETWAVE_CHECK(condition, message): an invariant only a bug in fleetwave can break. When it
// does not hold, the process prints where and why and aborts (systemd restarts it from the
// store), instead of acting on a state it was never meant to reach. Never for anything a user
// or a cluster can cause: those are engine::Error values (engine/error.h), handled and shown.
#pragma once

namespace fleetwave::engine {

[[noreturn]] void CheckFailed(const char* condition, const char* message, const char* file,
                              int line);

}  // namespace fleetwave::engine

#define FLEETWAVE_CHECK(condition, message)                                        \
  do {                                                                             \
    if (!(condition)) {                                                            \
      ::fleetwave::engine::CheckFailed(#condition, (message), __FILE__, __LINE__); \
    }                                                                              \
  } while (false)
