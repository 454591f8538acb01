// The daemon's log lines in the systemd journal. fleetwave's actors log one line per decision,
// prefixed with what it is about ("appset=guestbook app=guestbook-sim-0 cluster=sim-0 sync
// started (...) operation=..."). Under systemd (JOURNAL_STREAM names our stderr) each line goes
// to the journal through sd_journal_send with those parts as fields — APPSET, APP, CLUSTER, STEP,
// OPERATION — so `journalctl -u fleetwave APPSET=guestbook` filters one set, and with a
// PRIORITY from the line's level ("warning:" and an unreachable cluster 4, "error:" and a failed
// actor 3, otherwise 6). Elsewhere the
// plain timestamped line is written to stderr.
//
// Only the line's own text is sent: the fields are copies of parts of it, so nothing reaches the
// journal that the plain log would not show (the actors never log credentials or Secret data).
// tests/systemd/service_log_test.cc pins the parsing.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetwave::cli {

// syslog(3) priorities used here.
constexpr int kPriorityError = 3;
constexpr int kPriorityWarning = 4;
constexpr int kPriorityInfo = 6;

struct JournalEntry {
  int priority = kPriorityInfo;
  // Journal fields from the line, in the order found: {"APPSET", "guestbook"}, ... Each key at
  // most once (the first occurrence wins).
  std::vector<std::pair<std::string, std::string>> fields;
};

JournalEntry ParseLogLine(std::string_view line);

// True when stderr is the journal stream systemd set up (JOURNAL_STREAM's device:inode matches
// file descriptor 2), as sd_journal_stream_fd(3) documents.
bool StderrIsJournal();

// Sends the line with its fields; false when the journal did not take it (the caller then
// writes the plain line).
bool SendToJournal(const std::string& line);

// One line per event; safe from every thread. Journal when stderr is the journal, else
// "2026-12-01T01:02:03Z line" on `os`.
class DaemonLog {
 public:
  explicit DaemonLog(std::ostream& os);
  void operator()(const std::string& line);

 private:
  std::mutex mu_;
  std::ostream& os_;
  bool journal_;
};

}  // namespace fleetwave::cli
