// The cluster actor's informer projection: what one watched object is reduced to on the client's
// loop thread (the app label, engine::ProjectLiveObject and engine::AssessHealth of the whole
// object), carried as the informer Projection's Json and decoded back into a LiveEntry in the
// actor. Pure functions; the decoder reads with non-throwing accessors and reports a wrong shape.
#pragma once

#include <optional>
#include <string>

#include "actors/protocol.h"
#include "cluster-clients/result.h"

namespace fleetwave::actors {

using clients::Json;

// The informer projector: {"label": <fleetwave.io/app value>, "live": ..., "health": ...}; a
// workload's "health" is judged as if its deadline were not exceeded, and "healthIfExceeded"
// as if it were.
Json ProjectEntry(const Json& object);

struct ProjectedEntry {
  std::string label;  // the fleetwave.io/app label value ("" when absent)
  LiveEntry entry;
  // Workloads: their health should the daemon judge the progress deadline exceeded (a
  // Degraded one carries an empty message; the cluster actor puts the condition's in).
  std::optional<engine::HealthStatus> health_if_exceeded;
};

// The entry ProjectEntry projected; nullopt with `error` naming the field otherwise.
std::optional<ProjectedEntry> EntryFromProjection(const Json& fields, std::string* error);

Json LiveObjectToJson(const engine::LiveObject& live);
std::optional<engine::LiveObject> LiveObjectFromJson(const Json& json, std::string* error);

}  // namespace fleetwave::actors
