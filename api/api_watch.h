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

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "actors/change_feed.h"
#include "engine/yaml_json.h"

namespace fleetwave::api {

// One watch line (with its trailing newline) for an event type and object. Text that is not
// UTF-8 (a file error may quote such bytes) becomes U+FFFD, never a throw.
std::string WatchLine(const char* type, const engine::Json& object);

// The BOOKMARK line that ends the snapshot and keeps a quiet stream alive.
const std::string& BookmarkLine();

// A filtered watch (`/api/v1/rows?status=Failed&watch=1`): which objects the reader holds, so
// each change becomes the line a reader of only the matching objects needs, as a Kubernetes
// watch with a selector does: ADDED when an object starts matching, MODIFIED while it matches,
// DELETED (with its new state) when it stops matching or goes away, nothing otherwise
// (ApiWatchTest.FilteredWatch*). One per stream; not thread-safe.
class WatchSelection {
 public:
  using Filter = std::function<bool(const engine::Json&)>;
  explicit WatchSelection(std::shared_ptr<const Filter> filter) : filter_(std::move(filter)) {}

  // A snapshot item: whether to send it as ADDED (it is then held).
  bool Admit(const engine::Json& object);
  // A change of the object named `name`: the line's type, or nullptr to send nothing.
  const char* Translate(actors::ChangeType type, const std::string& name,
                        const engine::Json& object);

  // The name a watch item is known by: metadata.name, else a top-level "name" (rows, clusters).
  static std::string NameOf(const engine::Json& object);

 private:
  std::shared_ptr<const Filter> filter_;
  std::set<std::string> held_;
};

}  // namespace fleetwave::api
