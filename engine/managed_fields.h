// Server-side apply's record of which fields a manager owns (metadata.managedFields[].fieldsV1,
// the "f:"/"k:"/"v:"/"i:" tree of structured-merge-diff) and what fleetwave does with it:
// project a live object down to the fields fleetwave owns, and find where the live values of
// those fields differ from the desired object (drift, computed locally from watch data).
// Malformed input never throws: an entry that cannot be read is skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The fieldsV1 of `manager`'s Apply entry in metadata.managedFields; null when there is none.
Json ManagedFieldsOf(const Json& object, std::string_view manager);

// `object` restricted to the fields of `fields_v1` (keyed list items keep their key fields),
// so walking `fields_v1` over the result reads the same values as over the whole object.
Json RestrictToFields(const Json& fields_v1, const Json& object);

// One owned field whose live value differs from (or is absent where) the desired one.
// `pointer` is a JSON pointer into the live object (list items by their live index).
struct FieldDrift {
  std::string pointer;
  bool operator==(const FieldDrift&) const = default;
};

// Walks the leaves of `fields_v1` over `desired` and `live`, in key order. A leaf whose
// desired value is absent is skipped (the applied hash already tells that the desired object
// changed); one whose live value is absent or different is drift, unless `ignored` (JSON
// pointers: the leaf itself, an ancestor, or a part inside it, which is then left out of the
// comparison).
std::vector<FieldDrift> FindDrift(const Json& fields_v1, const Json& desired, const Json& live,
                                  const std::vector<std::string>& ignored);

// Removes the value at JSON pointer `pointer` from `value`, if there; malformed pointers and
// missing paths are no-ops.
void RemovePointer(Json& value, std::string_view pointer);

// "~" -> "~0", "/" -> "~1".
std::string EscapePointerToken(std::string_view token);

}  // namespace fleetwave::engine
