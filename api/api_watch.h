// The lines of a `?watch=1` stream of one StatusBoard collection, as JSON lines (content type
// application/json-lines); HttpServer (http_server.h) writes them:
//
//   {"type":"ADDED","object":{...}}                       one per item of the current snapshot
//   {"type":"BOOKMARK","object":{"initialEventsEnd":true}}  the snapshot is complete
//   {"type":"ADDED"|"MODIFIED"|"DELETED","object":{...}}    each change as it happens
//   {"type":"BOOKMARK","object":{"initialEventsEnd":true}}  again after `watch_keepalive` of quiet
//
// "object" is exactly the JSON the collection's list serves as an item (a DELETED line carries
// the last one published). The stream ends when the server stops, when the reader fell behind
// the feed's ring (a slow reader is dropped; it starts over with a new watch), when a write is
// not taken within the write timeout (a stalled reader), or when the client goes away.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "engine/yaml_json.h"

namespace fleetwave::api {

// One watch line (with its trailing newline) for an event type and object. Text that is not
// UTF-8 (a file error may quote such bytes) becomes U+FFFD, never a throw.
std::string WatchLine(const char* type, const engine::Json& object);

// The BOOKMARK line that ends the snapshot and keeps a quiet stream alive.
const std::string& BookmarkLine();

}  // namespace fleetwave::api
