#include "cluster-clients/prometheus_query.h"

#include "cluster-clients/http_get.h"
#include "cluster-clients/url.h"

namespace fleetwave::clients {
namespace {

// A Prometheus answer is small (one sample); anything much larger is not one.
constexpr std::size_t kMaxBody = 4u << 20;

std::string Base(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

std::string PrometheusQueryUrl(const std::string& prometheus, const std::string& query) {
  return Base(prometheus) + "/api/v1/query?query=" + EscapeQueryValue(query);
}

engine::PrometheusAnswer PrometheusInstantQuery(const std::string& prometheus,
                                                const std::string& query,
                                                std::chrono::milliseconds timeout) {
  engine::PrometheusAnswer out;
  if (prometheus.empty()) {
    out.error =
        "no Prometheus to query: set the step's analysis.prometheus or analysis.prometheus in "
        "fleetwave.yaml";
    return out;
  }
  SimpleRequest request;
  request.url = PrometheusQueryUrl(prometheus, query);
  request.headers = {"Accept: application/json"};
  request.timeout = timeout;
  request.max_body_bytes = kMaxBody;
  const SimpleResponse response = HttpFetch(request);
  const std::string where = Base(prometheus);
  if (response.status == 0) {
    out.error = where + " did not answer (" +
                (response.error_message.empty() ? "no response" : response.error_message) + ")";
    return out;
  }
  engine::Json body = engine::Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    out.error = where + " answered HTTP " + std::to_string(response.status) +
                " without a Prometheus JSON document";
    return out;
  }
  // 2xx, or Prometheus' own error document (its "error" names what is wrong with the query).
  // Any other document with an HTTP error (a proxy's stale answer) is no measurement: it must
  // never pass the step.
  const bool ok = response.status >= 200 && response.status < 300;
  const auto status = body.find("status");
  const bool prometheus_error =
      status != body.end() && status->is_string() && status->get<std::string>() == "error";
  if (!ok && !prometheus_error) {
    out.error = where + " answered HTTP " + std::to_string(response.status);
    return out;
  }
  out.body = std::move(body);
  return out;
}

}  // namespace fleetwave::clients
