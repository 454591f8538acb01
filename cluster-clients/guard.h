// The last line of defence on threads that run other code's handlers (the transport's loop,
// executors, exec runners): an exception that escapes a handler must cost the one request it
// belongs to, never the process (an uncaught exception on any thread is std::terminate).
// Decoding of untrusted input does not throw (json_fields.h); this catches what remains —
// bugs, std::bad_alloc, a caller's callback that throws.
//
//   if (auto what = RunGuarded([&] { HandleResponse(...); })) {
//     log("...: " + *what);                  // once, where it was caught
//     FailRequest(ErrorResult(kPermanent, kOther, ...));
//   }
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace fleetwave::clients {

// Runs `body`. Returns nullopt when it returned normally, else a description of the exception
// that escaped it. Never throws.
template <class F>
std::optional<std::string> RunGuarded(F&& body) noexcept {
  try {
    std::forward<F>(body)();
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("an exception that is not a std::exception");
  }
}

}  // namespace fleetwave::clients
