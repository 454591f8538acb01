#include "metrics/process_collector.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>

namespace fleetwave::metrics {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

std::optional<double> ParseNumber(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The fields of /proc/<pid>/stat after the command name. The name is in parentheses and may
// itself hold spaces and ')', so the fields start after the LAST ')'.
std::vector<std::string_view> StatFields(const std::string& stat) {
  std::vector<std::string_view> fields;
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return fields;
  std::string_view rest(stat);
  rest.remove_prefix(close + 1);
  while (!rest.empty()) {
    const auto start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const auto end = rest.find_first_of(" \n");
    fields.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  return fields;
}

std::optional<double> BootTime(const std::string& stat_file) {
  const auto text = ReadFile(stat_file);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("btime ", 0) == 0) return ParseNumber(std::string_view(line).substr(6));
  }
  return std::nullopt;
}

std::optional<double> MaxOpenFiles(const std::string& limits_file) {
  const auto text = ReadFile(limits_file);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(14));
    std::string soft;
    fields >> soft;
    if (soft == "unlimited") return std::nullopt;
    return ParseNumber(soft);
  }
  return std::nullopt;
}

std::optional<double> OpenFds(const std::string& fd_dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(fd_dir, ec);
  if (ec) return std::nullopt;
  double n = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    ++n;
  }
  return n;
}

void AddFamily(std::vector<prometheus::MetricFamily>& out, const char* name, const char* help,
               prometheus::MetricType type, const std::optional<double>& value) {
  if (!value) return;
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = *value;
  } else {
    metric.gauge.value = *value;
  }
  family.metric.push_back(metric);
  out.push_back(std::move(family));
}

}  // namespace

ProcessStats ReadProcessStats(const std::string& pid_dir, const std::string& stat_file,
                              long ticks_per_second, long page_size) {
  ProcessStats s;
  if (const auto stat = ReadFile(pid_dir + "/stat"); stat && ticks_per_second > 0) {
    // Field numbers of proc(5) minus 3: the first field after the name is field 3 (state).
    const auto f = StatFields(*stat);
    if (f.size() > 21) {
      const auto utime = ParseNumber(f[11]);
      const auto stime = ParseNumber(f[12]);
      if (utime && stime) s.cpu_seconds = (*utime + *stime) / static_cast<double>(ticks_per_second);
      const auto start_ticks = ParseNumber(f[19]);
      const auto boot = BootTime(stat_file);
      if (start_ticks && boot) {
        s.start_time_seconds = *boot + *start_ticks / static_cast<double>(ticks_per_second);
      }
      s.virtual_bytes = ParseNumber(f[20]);
      if (const auto rss = ParseNumber(f[21]); rss && page_size > 0) {
        s.resident_bytes = *rss * static_cast<double>(page_size);
      }
    }
  }
  s.open_fds = OpenFds(pid_dir + "/fd");
  s.max_fds = MaxOpenFiles(pid_dir + "/limits");
  return s;
}

ProcessCollector::ProcessCollector(std::string proc) : proc_(std::move(proc)) {}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  const ProcessStats s = ReadProcessStats(proc_ + "/self", proc_ + "/stat", sysconf(_SC_CLK_TCK),
                                          sysconf(_SC_PAGESIZE));
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  AddFamily(out, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
            MetricType::Counter, s.cpu_seconds);
  AddFamily(out, "process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
            s.max_fds);
  AddFamily(out, "process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
            s.open_fds);
  AddFamily(out, "process_resident_memory_bytes", "Resident memory size in bytes.",
            MetricType::Gauge, s.resident_bytes);
  AddFamily(out, "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
            s.start_time_seconds);
  AddFamily(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
            s.virtual_bytes);
  return out;
}

}  // namespace fleetwave::metrics
