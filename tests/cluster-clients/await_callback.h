// Turns a callback API into a blocking call for tests: `start` receives the callback, and the
// value it is called with is returned. No answer within `within` is a test failure (and a
// default T), never a hang: the integration tests talk to real processes that may not answer.
#pragma once

#include <chrono>
#include <future>
#include <memory>

#include <gtest/gtest.h>

namespace fleetwave::clients::testing {

template <typename T, typename Start>
T Await(Start start, std::chrono::seconds within = std::chrono::seconds(30)) {
  auto p = std::make_shared<std::promise<T>>();
  auto f = p->get_future();
  start([p](T v) { p->set_value(std::move(v)); });
  if (f.wait_for(within) != std::future_status::ready) {
    ADD_FAILURE() << "no answer within the deadline";
    return T{};
  }
  return f.get();
}

}  // namespace fleetwave::clients::testing
