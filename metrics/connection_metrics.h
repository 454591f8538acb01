// The daemon's connections to its clusters, as the one HTTP transport counts them (issue 26:
// one connection per cluster), rendered at scrape time:
//   fleetwave_cluster_connections_opened_total   counter  TCP connections opened to clusters
//                                                         (each https one a TLS handshake)
//   fleetwave_cluster_connections_open           gauge    connections held (in use or idle)
//   fleetwave_cluster_responses_total{protocol}  counter  responses by protocol: http2|http1
// Fleet-wide, not per cluster: every cluster shares the transport, whose counters do not know
// the origin, and at 2,000 clusters a per-cluster series would add 2,000 series to answer a
// question the fleet-wide rate already answers (opened_total should grow by about one per
// cluster at start and stay flat; open should stay near the cluster count). Which cluster
// reconnects shows in fleetwave_watch_restarts_total{cluster}.
//
// Thread-safety: plain values in, families out; no state.
#pragma once

#include <cstdint>
#include <vector>

#include <prometheus/metric_family.h>

namespace fleetwave::metrics {

struct ConnectionCounts {
  std::int64_t opened = 0;
  std::int64_t open = 0;
  std::int64_t responses_http2 = 0;
  std::int64_t responses_http1 = 0;
};

std::vector<prometheus::MetricFamily> ConnectionFamilies(const ConnectionCounts& counts);

}  // namespace fleetwave::metrics
