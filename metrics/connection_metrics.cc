#include "metrics/connection_metrics.h"

#include <string>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>

namespace fleetwave::metrics {
namespace {

prometheus::ClientMetric Value(prometheus::MetricType type, std::int64_t value,
                               std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = static_cast<double>(value);
  } else {
    m.gauge.value = static_cast<double>(value);
  }
  return m;
}

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

}  // namespace

std::vector<prometheus::MetricFamily> ConnectionFamilies(const ConnectionCounts& counts) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  auto opened = Family("fleetwave_cluster_connections_opened_total",
                       "TCP connections opened to clusters (each https one a TLS handshake)",
                       MetricType::Counter);
  opened.metric.push_back(Value(MetricType::Counter, counts.opened));
  out.push_back(std::move(opened));
  auto open = Family("fleetwave_cluster_connections_open",
                     "Connections to clusters held now, in use or idle", MetricType::Gauge);
  open.metric.push_back(Value(MetricType::Gauge, counts.open));
  out.push_back(std::move(open));
  auto responses =
      Family("fleetwave_cluster_responses_total",
             "Responses from clusters by protocol (http2 or http1)", MetricType::Counter);
  responses.metric.push_back(
      Value(MetricType::Counter, counts.responses_http1, {{"protocol", "http1"}}));
  responses.metric.push_back(
      Value(MetricType::Counter, counts.responses_http2, {{"protocol", "http2"}}));
  out.push_back(std::move(responses));
  return out;
}

}  // namespace fleetwave::metrics
