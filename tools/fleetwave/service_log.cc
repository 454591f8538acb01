#include "tools/fleetwave/service_log.h"

#include <sys/stat.h>
#include <sys/uio.h>
// CODE_FILE/CODE_LINE would name this file for every line: noise, not where the event is.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace fleetwave::cli {
namespace {

struct FieldKey {
  const char* prefix;  // as it appears in the line
  const char* field;   // the journal field
};
constexpr FieldKey kKeys[] = {{"appset=", "APPSET"},
                              {"app=", "APP"},
                              {"cluster=", "CLUSTER"},
                              {"step=", "STEP"},
                              {"operation=", "OPERATION"}};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// A value ends at whitespace; punctuation that closes a phrase is not part of it
// ("(operation=guestbook-1)", "cluster=sim-0:").
std::string_view TrimValue(std::string_view v) {
  while (!v.empty() && std::strchr("),;:.", v.back()) != nullptr) v.remove_suffix(1);
  return v;
}

bool IsDigits(std::string_view v) {
  if (v.empty()) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  return true;
}

void Add(JournalEntry& e, const char* field, std::string_view value) {
  if (value.empty()) return;
  for (const auto& [k, v] : e.fields)
    if (k == field) return;
  e.fields.emplace_back(field, std::string(value));
}

}  // namespace

JournalEntry ParseLogLine(std::string_view line) {
  JournalEntry e;
  // Words, split on whitespace; a word may open with "(" ("(step 2)").
  std::vector<std::string_view> words;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  for (size_t w = 0; w < words.size(); ++w) {
    std::string_view word = words[w];
    if (!word.empty() && word.front() == '(') word.remove_prefix(1);
    for (const auto& key : kKeys) {
      const size_t n = std::strlen(key.prefix);
      if (word.substr(0, n) == key.prefix) Add(e, key.field, TrimValue(word.substr(n)));
    }
    // The rollout's own phrasing: "(step 2)", "step 3 complete".
    if (word == "step" && w + 1 < words.size()) {
      const std::string_view next = TrimValue(words[w + 1]);
      if (IsDigits(next)) Add(e, "STEP", next);
    }
  }
  // The level: the daemon's lines say "warning: ..." (possibly after the key=value prefix), a
  // cluster going unreachable is a warning too; a failed actor is an error.
  if (line.find("warning:") != std::string_view::npos ||
      line.find(" unreachable") != std::string_view::npos) {
    e.priority = kPriorityWarning;
  } else if (line.find("error:") != std::string_view::npos ||
             line.find(" failed (") != std::string_view::npos) {
    e.priority = kPriorityError;
  }
  return e;
}

bool StderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (fstat(2, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev &&
         static_cast<unsigned long long>(st.st_ino) == ino;
}

bool SendToJournal(const std::string& line) {
  const JournalEntry e = ParseLogLine(line);
  std::vector<std::string> parts;
  parts.reserve(e.fields.size() + 3);
  parts.push_back("MESSAGE=" + line);
  parts.push_back("PRIORITY=" + std::to_string(e.priority));
  parts.push_back("SYSLOG_IDENTIFIER=fleetwave");
  for (const auto& [k, v] : e.fields) parts.push_back(k + "=" + v);
  std::vector<iovec> iov;
  iov.reserve(parts.size());
  for (auto& p : parts) iov.push_back(iovec{p.data(), p.size()});
  return sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) == 0;
}

DaemonLog::DaemonLog(std::ostream& os) : os_(os), journal_(StderrIsJournal()) {}

void DaemonLog::operator()(const std::string& line) {
  if (journal_ && SendToJournal(line)) return;
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::lock_guard<std::mutex> lock(mu_);
  os_ << stamp << " " << line << "\n" << std::flush;
}

}  // namespace fleetwave::cli
