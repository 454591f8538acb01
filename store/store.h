// The daemon's durable state, as keys and values with revisions. Everything fleetwave must
// remember across a crash (pins, started syncs, deadline starts, pauses, skips, deletions in
// progress, last good input files) goes through this interface; state.h names the keys.
//
// Model (chosen so that an etcd backend maps one to one): the store has one revision counter;
// every committed write batch increments it by one and stamps that number on every key it
// puts. A write may require a key's current revision (compare-and-set; 0 = "must not exist"),
// and a batch of puts and deletes commits entirely or not at all. No caller sees SQL.
//
// Write-ahead (product rule "a started sync, a pinned revision, ... survive kill -9"): every
// write returns only after its batch is committed and synced to disk, so the caller's pattern
//   1. Commit the record that enables an action;  2. take the action
// never takes an action whose record could be lost. Store failpoints sit on both sides of every
// commit (failpoint.h) and tests/store/ kills a child process at each.
//
// Group commit (group_commit.h): concurrent Commit calls may share one backend transaction
// and one fsync. Each batch still gets its own revision, succeeds or fails on its own
// comparisons alone, and returns only when it is durable; a backend failure fails every batch
// of that transaction and acknowledges none.
//
// Thread-safety: implementations are safe to call from any thread; calls block on disk
// (fsync), so the daemon calls them from its blocking pool, never from an actor thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fleetwave::store {

enum class Code {
  kOk,
  kNotFound,  // Get of a key that does not exist
  kConflict,  // a compare-and-set found another revision; nothing of the batch was written
  kIo,        // the backend failed (disk, corruption, busy); the batch was not committed
  kLocked,    // another process holds the state directory
  kSchema,    // the database's schema is newer than this binary, or a migration failed
  kInvalid,   // the caller asked for something malformed (bad URL, empty key)
  kCorrupt,   // a stored value does not decode (typed layer)
  kIdentity,  // the state directory's marker names another database (it vanished, was emptied
              // or replaced): refused unless the empty state is accepted (state_identity.h)
};

struct Status {
  Code code = Code::kOk;
  std::string message;  // complete text for logs; empty when ok
  bool ok() const { return code == Code::kOk; }
};

struct Entry {
  std::string key;
  std::string value;     // bytes; the typed layer stores JSON text
  int64_t revision = 0;  // the store revision of the batch that last put this key
};

// One operation of a write batch.
struct Op {
  enum class Kind { kPut, kDelete };
  Kind kind = Kind::kPut;
  std::string key;
  std::string value;  // kPut only
  // Compare-and-set: nullopt = unconditional; 0 = the key must not exist; N > 0 = the key
  // must currently exist with revision N. Any failed comparison fails the whole batch.
  std::optional<int64_t> expected_revision;

  static Op Put(std::string key, std::string value,
                std::optional<int64_t> expected = std::nullopt) {
    return {Kind::kPut, std::move(key), std::move(value), expected};
  }
  static Op Delete(std::string key, std::optional<int64_t> expected = std::nullopt) {
    return {Kind::kDelete, std::move(key), "", expected};
  }
};

struct WriteResult {
  Status status;
  int64_t revision = 0;      // the store revision after the commit (ok only)
  std::string conflict_key;  // the first key whose comparison failed (kConflict only)
  bool ok() const { return status.ok(); }
};

struct GetResult {
  Status status;  // kNotFound when the key does not exist
  Entry entry;
  bool ok() const { return status.ok(); }
};

struct ListResult {
  Status status;
  std::vector<Entry> entries;  // in key (byte) order
  int64_t revision = 0;        // the store revision the listing was read at
  bool ok() const { return status.ok(); }
};

// What a store counts about its commits (for metrics, and for tests of the grouping).
struct CommitCounters {
  int64_t batches = 0;       // write batches committed (each got its own revision)
  int64_t transactions = 0;  // backend transactions made durable (SQLite: one fsync each)
  int64_t queued = 0;        // batches waiting for the group being committed now
};

class Store {
 public:
  virtual ~Store() = default;

  virtual GetResult Get(const std::string& key) = 0;
  // Every key starting with `prefix` ("" lists everything), read at one revision.
  virtual ListResult List(const std::string& prefix) = 0;
  // Applies `ops` atomically. Returns after the commit is durable. An empty batch is a no-op
  // that returns the current revision.
  virtual WriteResult Commit(const std::vector<Op>& ops) = 0;
  // The current store revision (0 for a fresh store; -1 when the backend cannot be read).
  virtual int64_t Revision() = 0;
  // Counts since the store was opened (zeros for a store that does not count).
  virtual CommitCounters Counters() { return {}; }

  WriteResult Put(std::string key, std::string value,
                  std::optional<int64_t> expected = std::nullopt) {
    return Commit({Op::Put(std::move(key), std::move(value), expected)});
  }
  WriteResult Delete(std::string key, std::optional<int64_t> expected = std::nullopt) {
    return Commit({Op::Delete(std::move(key), expected)});
  }
};

const char* CodeName(Code code);

}  // namespace fleetwave::store
