// Store group commit (issue 25 part 4): commits/s of the SQLite store with 1, 4 and 16
// concurrent committers, each a ratio to the single-committer floor measured in the same run
// (the host is shared, so only same-run ratios count). Each committer commits batches shaped
// like the appset actor's (a pin and an operation record of ~200 bytes, its own keys) until the
// round's deadline; every commit is durable (WAL, synchronous=FULL) when it returns. Also
// prints the batches per transaction (= per fsync) the group commit achieved.
// Usage: store_commit_bench [--dir=D] [--seconds=S] [C...]  (default: a temp dir, 3 s, 1 4 16)
// D should be on the disk the daemon's state directory uses: tmpfs makes fsync free.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite_store.h"

namespace {

namespace fs = std::filesystem;
namespace store = fleetwave::store;
using Clock = std::chrono::steady_clock;

struct Round {
  int committers = 0;
  double commits_per_s = 0;
  double batches_per_txn = 0;
  int64_t failed = 0;
};

Round Run(const std::string& dir, int committers, double seconds) {
  Round out;
  out.committers = committers;
  const std::string db = dir + "/state.db";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
  fs::remove(dir + "/state-id");
  store::OpenResult r = store::OpenSqliteStore(db);
  if (!r.ok()) {
    std::fprintf(stderr, "open: %s\n", r.status.message.c_str());
    std::exit(1);
  }
  store::Store& s = *r.store;
  const std::string value(200, 'x');
  std::latch start(committers + 1);
  std::atomic<int64_t> commits{0}, failed{0};
  Clock::time_point deadline;
  std::vector<std::thread> threads;
  for (int c = 0; c < committers; ++c) {
    threads.emplace_back([&, c] {
      start.arrive_and_wait();
      const std::string set = "appsets/bench-" + std::to_string(c);
      for (int64_t i = 0; Clock::now() < deadline; ++i) {
        const std::string app = std::to_string(i % 100);
        store::WriteResult w = s.Commit({store::Op::Put(set + "/pin/" + app, value),
                                         store::Op::Put(set + "/operation/" + app, value)});
        (w.ok() ? commits : failed).fetch_add(1);
      }
    });
  }
  const store::CommitCounters before = s.Counters();
  const Clock::time_point begin = Clock::now();
  deadline =
      begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  const store::CommitCounters after = s.Counters();
  out.commits_per_s = static_cast<double>(commits.load()) / elapsed;
  const int64_t txns = after.transactions - before.transactions;
  out.batches_per_txn =
      txns == 0 ? 0
                : static_cast<double>(after.batches - before.batches) / static_cast<double>(txns);
  out.failed = failed.load();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  double seconds = 3;
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--dir=", 0) == 0) {
      dir = arg.substr(6);
    } else if (arg.rfind("--seconds=", 0) == 0) {
      seconds = std::atof(arg.c_str() + 10);
    } else {
      counts.push_back(std::atoi(arg.c_str()));
    }
  }
  if (counts.empty()) counts = {1, 4, 16};
  bool own_dir = false;
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "store-commit-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return 1;
    dir = tmpl;
    own_dir = true;
  }
  // The floor first, then every count, so the ratios are of one run.
  std::vector<Round> rounds;
  const Round floor = Run(dir, 1, seconds);
  for (int c : counts) rounds.push_back(c == 1 ? floor : Run(dir, c, seconds));
  std::printf("%-11s %12s %16s %18s %7s\n", "committers", "commits/s", "x single floor",
              "batches per fsync", "failed");
  for (const Round& r : rounds) {
    std::printf("%-11d %12.0f %16.2f %18.2f %7lld\n", r.committers, r.commits_per_s,
                r.commits_per_s / floor.commits_per_s, r.batches_per_txn,
                static_cast<long long>(r.failed));
  }
  if (own_dir) fs::remove_all(dir);
  return 0;
}
