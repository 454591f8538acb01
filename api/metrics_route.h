// The metrics listener's one route: GET (or HEAD) /metrics answers the Prometheus text
// exposition (format 0.0.4) that `render` returns at that moment; anything else is 404 or 405.
// The daemon carries it on an HttpServer of its own on listen.metrics (same limits, TLS and Host
// rules as the API), so a scrape never waits for an API client.
//
// Thread-safety: `render` is called on the server's worker threads, possibly concurrently.
#pragma once

#include <functional>
#include <string>

#include "api/http_server.h"

namespace fleetwave::api {

HttpServer::Handler MetricsHandler(std::function<std::string()> render);

}  // namespace fleetwave::api
