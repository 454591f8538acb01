// The types of the Application fields fleetwave (and Argo CD) read, checked strictly: a value
// of the wrong type is an error naming the field, never read as absent or as a default.
// Argo CD and Kubernetes refuse such documents too (Go's strict unmarshal): `namespace: 123`
// must not deploy into the default namespace, `targetRevision: 1` must not become HEAD, and
// `prune: 5` must not be read as false. Unknown fields pass, as they pass through Argo CD's
// template; null is absent, as Go reads it. Checked on the set's template when it is decoded
// (with YAML positions) and on every generated Application (whatever built it).
// Pinned by tests/engine/appset/application_schema_test.cc.
#pragma once

#include <string>
#include <vector>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct FieldTypeProblem {
  std::vector<Json> at;  // the field's path: object keys (strings) and array indexes (numbers)
  std::string path;      // the same, dotted: "spec.sources[1].targetRevision"
  std::string message;   // "wrong type: expected string, got integer"
};

// Checks an Application, or a template for one ({metadata, spec}, possibly partial), against
// the field types of argoproj.io/v1alpha1 Application. Iterative in the document's depth only
// through the schema, which is shallow: any nesting depth of the input is safe.
std::vector<FieldTypeProblem> CheckApplicationFieldTypes(const Json& application);

// "object", "array", "string", "integer", "number", "boolean", "null".
std::string JsonTypeName(const Json& value);

}  // namespace fleetwave::engine
