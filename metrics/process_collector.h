// The standard process metrics, read from /proc at scrape time: prometheus-cpp 1.0 ships no
// process collector, and Prometheus users expect the names client_golang exports.
//   process_cpu_seconds_total       counter  user + system CPU time
//   process_resident_memory_bytes   gauge    resident set size
//   process_virtual_memory_bytes    gauge    virtual memory size
//   process_open_fds                gauge    entries of /proc/self/fd
//   process_max_fds                 gauge    the soft "Max open files" limit
//   process_start_time_seconds      gauge    Unix time the process started (boot time + ticks)
// A file that cannot be read or parsed leaves its metrics out of that scrape rather than
// reporting a wrong number (process_collector_test.cc, UnreadableFilesLeaveMetricsOut).
//
// Thread-safety: Collect() reads files only and keeps no state; any thread, concurrently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace fleetwave::metrics {

struct ProcessStats {
  std::optional<double> cpu_seconds;
  std::optional<double> resident_bytes;
  std::optional<double> virtual_bytes;
  std::optional<double> open_fds;
  std::optional<double> max_fds;
  std::optional<double> start_time_seconds;
};

// Reads the stats of `pid_dir` ("/proc/self") with the boot time from `stat_file`
// ("/proc/stat"). `ticks_per_second` and `page_size` are sysconf's values (parameters so the
// parsing is testable against fixed files).
ProcessStats ReadProcessStats(const std::string& pid_dir, const std::string& stat_file,
                              long ticks_per_second, long page_size);

class ProcessCollector : public prometheus::Collectable {
 public:
  // `proc` is the procfs mount; tests point it at a fake tree.
  explicit ProcessCollector(std::string proc = "/proc");
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string proc_;
};

}  // namespace fleetwave::metrics
