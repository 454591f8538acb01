// A `?watch=1` stream of one StatusBoard collection, as JSON lines (content type
// application/json-lines), apart from the socket so every rule is testable with a fake writer:
//
//   {"type":"ADDED","object":{...}}                       one per item of the current snapshot
//   {"type":"BOOKMARK","object":{"initialEventsEnd":true}}  the snapshot is complete
//   {"type":"ADDED"|"MODIFIED"|"DELETED","object":{...}}    each change as it happens
//   {"type":"BOOKMARK","object":{"initialEventsEnd":true}}  again after `keepalive` of quiet
//
// "object" is exactly the JSON the collection's list serves as an item (a DELETED line carries
// the last one published). The stream ends when the server stops (`cancelled`), when the reader
// fell behind the feed's ring (a slow reader is dropped; it starts over with a new watch), or
// when a write fails (the client went away).
//
// Thread-safety: runs on the calling (civetweb) thread; `write` is called only from it. The
// board is only read.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "actors/status_board.h"

namespace fleetwave::api {

struct WatchOptions {
  std::chrono::milliseconds keepalive{15000};
  // Lines are handed to `write` in batches of about this many bytes (a snapshot of thousands
  // of Applications is not one write per line).
  size_t batch_bytes = 64 * 1024;
};

enum class WatchEnd {
  kCancelled,    // the server is stopping
  kBehind,       // the reader lagged more than the feed's ring holds: dropped
  kWriteFailed,  // the client went away
  kUnknown,      // not a watch collection
};

const char* WatchEndName(WatchEnd end);

// `write` gets whole lines and returns false when the connection is gone.
WatchEnd StreamWatch(const actors::StatusBoard& board, const std::string& collection,
                     const WatchOptions& options, const std::atomic<bool>& cancelled,
                     const std::function<bool(std::string_view)>& write);

// One watch line (with its trailing newline) for an event type and object.
std::string WatchLine(const char* type, const engine::Json& object);

}  // namespace fleetwave::api
