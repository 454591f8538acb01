#include "api/metrics_route.h"

#include <utility>

namespace fleetwave::api {

HttpServer::Handler MetricsHandler(std::function<std::string()> render) {
  return [render = std::move(render)](const ApiRequest& request) {
    if (request.path != "/metrics") {
      return ApiError(404, "no route for " + LogSafe(request.path) + " (metrics are at /metrics)");
    }
    if (request.method != "GET" && request.method != "HEAD") {
      ApiResponse r = ApiError(405, "method " + LogSafe(request.method) +
                                        " is not allowed on /metrics (allowed: GET, HEAD)");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    ApiResponse r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = render();
    return r;
  };
}

}  // namespace fleetwave::api
