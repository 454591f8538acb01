// Drift: where a live object differs from what git says, whoever changed it. Every field of the
// desired object is compared with its live value, normalised the way the API server stores
// values (quantities canonicalised, zero values omitted, Secret stringData folded into data,
// list items matched by their merge key), so only a real difference counts. Fields the
// desired object does not set (server defaults, other managers' additions) are never drift.
// Secret values are compared by hash and never kept or printed. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/object_ref.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The fact "`object` has drifted from git at `pointer`": a JSON pointer into the live object
// (list items by their live index; a desired item missing live by its desired index).
struct Drift {
  ObjectRef object;
  std::string pointer;
  bool operator==(const Drift&) const = default;
};

// The JSON pointer of the first desired field (in key order) whose live value differs, or
// nullopt when every desired field is live. `live_fields` is the union of every manager's
// fieldsV1 on the live object: it names the merge keys of associative lists ("k:{...}") and
// marks sets ("v:..."); lists it says nothing about are matched by `name`, else by position.
// `ignored` are JSON pointers (ignoreDifferences) whose fields, and everything below, are left
// out. Top-level apiVersion, kind and status are not compared.
std::optional<std::string> FirstDifference(const Json& desired, const Json& live,
                                           const Json& live_fields,
                                           const std::vector<std::string>& ignored);

// A Secret as the API server stores it, for comparison: stringData folded into data, then every
// data value replaced by its hash. Other objects are returned unchanged.
Json NormaliseForComparison(const ObjectRef& ref, Json object);
// False where NormaliseForComparison changes nothing (every kind but a Secret): the caller
// compares the object as it is, without a copy.
bool ChangedByNormalising(const ObjectRef& ref);

// Replaces the values of a Secret's `data` by their hashes (in place); other kinds untouched.
void HashSecretData(const ObjectRef& ref, Json& object);

// Kubernetes resource quantities ("500m", "0.5", "1Gi", "1e3", or a JSON number) denote the
// same amount. False when either does not parse as a quantity.
bool SameQuantity(const Json& a, const Json& b);

}  // namespace fleetwave::engine
