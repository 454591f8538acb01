// The state directory's memory of which database it had (docs/state-store.md, "A database
// that vanished or was emptied"). A random identity is stored inside the database when it is
// created and in a marker file beside it (<dir>/state-id). At open, a marker whose identity the
// database does not carry (the database is missing, empty, or another one) means the state
// was lost: fleetwave refuses to start fresh, naming both files, unless the operator accepts
// the empty state (`fleetwave run --accept-empty-state`). Losing the marker alone is harmless:
// the database's identity rewrites it.
//
// Pure decision (DecideIdentity) plus the marker file's I/O. Thread-compatible.
#pragma once

#include <optional>
#include <string>

#include "store/store.h"

namespace fleetwave::store {

// The marker file of the database at `db_path`: "<dir>/state-id".
std::string MarkerPath(const std::string& db_path);

struct Marker {
  bool exists = false;
  std::string identity;  // "" when the file exists but holds no identity
  Status status;         // kIo when the file exists but cannot be read
};
Marker ReadMarker(const std::string& path);
// Replaces the marker atomically (temporary file, fsync, rename, fsync of the directory).
Status WriteMarker(const std::string& path, const std::string& identity);

// 32 random hex digits.
std::string NewIdentity();

// What open does about identities, given the marker and what the database holds.
struct IdentityDecision {
  enum class Action {
    kKeep,         // marker and database agree
    kWriteMarker,  // the database has an identity, the marker is missing: rewrite it
    kCreate,       // neither has one (first start, or a database from before markers)
    kRefuse,       // the marker names a database this one is not: `status` says why
  };
  Action action = Action::kKeep;
  Status status;     // kRefuse: Code::kIdentity with the complete message
  std::string note;  // kWriteMarker/kCreate with accept: a line for the log
};

// `db_identity`: nullopt when the database has no identity (missing, empty, fresh schema or
// written by a fleetwave before markers). `db_state`: a short description of the database for
// the message ("is missing", "is empty (0 bytes)", "has no identity", "has identity X").
// With `accept_empty_state`, a refusal becomes kCreate (a new identity is written to both).
IdentityDecision DecideIdentity(const std::string& db_path, const std::string& marker_path,
                                const Marker& marker, const std::optional<std::string>& db_identity,
                                const std::string& db_state, bool accept_empty_state);

}  // namespace fleetwave::store
