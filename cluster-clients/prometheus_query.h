// One instant query of Prometheus' HTTP API for a RollingSync step's analysis (issue 29):
// GET <prometheus>/api/v1/query?query=<the query, escaped>, through the same libcurl client the
// command line uses (http_get.h). Blocking: the daemon runs it on its blocking pool, never on an
// actor's thread. What it returns is judged by engine::Measure, which counts anything but a
// single value meeting the condition as a failed measurement.
//
// Thread-safety: each call is independent.
#pragma once

#include <chrono>
#include <string>

#include "engine/rollingsync/analysis.h"

namespace fleetwave::clients {

// `prometheus` is the base URL (http:// or https://, a trailing slash is fine); empty: the
// answer says that no Prometheus is configured. No answer (refused, unknown host, timeout) is
// an answer without a body, with why; an HTTP error with Prometheus' JSON error document
// (a bad query: 400 or 422) hands that document over, so the measurement names its error.
engine::PrometheusAnswer PrometheusInstantQuery(const std::string& prometheus,
                                                const std::string& query,
                                                std::chrono::milliseconds timeout);

// The URL of that GET (for the log).
std::string PrometheusQueryUrl(const std::string& prometheus, const std::string& query);

}  // namespace fleetwave::clients
