// The process metrics: parsed from fixed /proc files (table), and sane for this very process.
#include "metrics/process_collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

namespace fs = std::filesystem;

class FakeProc {
 public:
  FakeProc() {
    root_ = fs::temp_directory_path() /
            ("fleetwave-proc-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(root_ / "self");
  }
  ~FakeProc() { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel) << text;
  }
  void Fds(int n) {
    fs::create_directories(root_ / "self" / "fd");
    for (int i = 0; i < n; ++i) Write("self/fd/" + std::to_string(i), "");
  }
  std::string root() const { return root_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path root_;
};

// proc(5) stat line: pid (comm) state ppid ... utime(14) stime(15) ... starttime(22)
// vsize(23) rss(24) ...
std::string StatLine(const std::string& comm, long utime, long stime, long start, long vsize,
                     long rss) {
  std::string s = "4242 (" + comm + ") S 1 4242 4242 0 -1 4194560 100 0 0 0 ";
  s += std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 9 0 ";
  s += std::to_string(start) + " " + std::to_string(vsize) + " " + std::to_string(rss);
  s += " 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  return s;
}

TEST(ProcessCollectorTest, ReadsFixedProcFiles) {
  struct Case {
    const char* name;
    std::string comm;
  };
  const std::vector<Case> cases = {
      {"plain command name", "fleetwave"},
      {"command name with spaces and parentheses", "fleet wave) (x"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeProc proc;
    proc.Write("self/stat", StatLine(c.comm, 250, 150, 1000, 123456789, 2000));
    proc.Write("stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n");
    proc.Write("self/limits",
               "Limit                     Soft Limit           Hard Limit           Units\n"
               "Max open files            65536                524288               files\n");
    proc.Fds(7);
    const ProcessStats s =
        ReadProcessStats(proc.root() + "/self", proc.root() + "/stat", 100, 4096);
    ASSERT_TRUE(s.cpu_seconds && s.start_time_seconds && s.resident_bytes && s.virtual_bytes &&
                s.open_fds && s.max_fds);
    EXPECT_DOUBLE_EQ(*s.cpu_seconds, 4.0);
    EXPECT_DOUBLE_EQ(*s.start_time_seconds, 1700000010.0);
    EXPECT_DOUBLE_EQ(*s.resident_bytes, 2000.0 * 4096);
    EXPECT_DOUBLE_EQ(*s.virtual_bytes, 123456789.0);
    EXPECT_DOUBLE_EQ(*s.open_fds, 7);
    EXPECT_DOUBLE_EQ(*s.max_fds, 65536);
  }
}

TEST(ProcessCollectorTest, UnreadableFilesLeaveMetricsOut) {
  struct Case {
    const char* name;
    std::string stat, proc_stat;
    bool cpu, start;
  };
  const std::vector<Case> cases = {
      {"no files at all", "", "", false, false},
      {"truncated stat line", "1 (x) S 1 2 3\n", "btime 1700000000\n", false, false},
      {"no boot time", StatLine("x", 1, 1, 1, 1, 1), "cpu 1 2 3\n", true, false},
      {"garbage pid and boot time", StatLine("x", 1, 1, 1, 1, 1).replace(0, 4, "zzzz"), "btime x\n",
       true, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeProc proc;
    if (!c.stat.empty()) proc.Write("self/stat", c.stat);
    if (!c.proc_stat.empty()) proc.Write("stat", c.proc_stat);
    const ProcessStats s =
        ReadProcessStats(proc.root() + "/self", proc.root() + "/stat", 100, 4096);
    EXPECT_EQ(s.cpu_seconds.has_value(), c.cpu);
    EXPECT_EQ(s.start_time_seconds.has_value(), c.start);
    EXPECT_FALSE(s.open_fds.has_value());  // no fd directory
    // The collector then simply omits what it could not read.
    const auto families = ProcessCollector(proc.root()).Collect();
    for (const auto& f : families) {
      if (f.name == "process_open_fds") ADD_FAILURE() << "open fds reported without a fd dir";
      if (f.name == "process_start_time_seconds" && !c.start) ADD_FAILURE() << f.name;
    }
  }
}

// This process, through the Metrics exposition: every process metric present and plausible.
TEST(ProcessCollectorTest, ProcessMetricsPresentAndSane) {
  // Burn a little CPU so the counter is measurably above zero.
  volatile double sink = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;

  Metrics m;
  const auto samples = testing::ParseSamples(m.Text());
  auto value = [&](const char* name) {
    auto s = testing::Find(samples, name);
    EXPECT_EQ(s.size(), 1u) << name;
    return s.empty() ? -1.0 : s[0].value;
  };
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GT(value("process_cpu_seconds_total"), 0);
  EXPECT_GT(value("process_resident_memory_bytes"), 1 << 20);
  EXPECT_GE(value("process_virtual_memory_bytes"), value("process_resident_memory_bytes"));
  EXPECT_GE(value("process_open_fds"), 3);  // stdin, stdout, stderr
  EXPECT_LE(value("process_open_fds"), value("process_max_fds"));
  // Started before now, and not long ago (this test binary).
  EXPECT_LE(value("process_start_time_seconds"), now + 1);
  EXPECT_GT(value("process_start_time_seconds"), now - 3600);
}

}  // namespace
}  // namespace fleetwave::metrics
