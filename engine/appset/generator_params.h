// Parameter-set arithmetic shared by the generators: flattening (how fasttemplate and
// post-selectors see parameters), the deep merges matrix/merge and template overrides use,
// and Argo CD's name sanitising. Pinned by tests/engine/generators/.
#pragma once

#include <map>
#include <string>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

// Flattens nested parameters into dotted keys: objects "a.b", arrays "a.0" (Argo CD's
// DotStyle flattening). Strings stay as they are, null is "", other scalars print as JSON.
std::map<std::string, std::string> FlattenParams(const Json& params);

// The same as a JSON object of strings: fasttemplate parameters.
Json FlatParamsObject(const Json& params);

// Deep merge: objects merge key by key, anything else in `over` replaces `base`
// (mergo.Merge WithOverride, which matrix and merge use in goTemplate mode).
Json MergeOverride(const Json& base, const Json& over);

// A per-generator template over the set's template: objects merge key by key; a value the
// generator template leaves empty ("", [], {}, null) is taken from the set's template, any
// other value of the generator template wins (mergo.Merge of the set template into it).
Json MergeTemplate(const Json& generator_template, const Json& set_template);

// Argo CD's SanitizeName: lower-case, every character outside [-a-z0-9.] becomes '-', cut to
// 253 characters, then leading and trailing '-' and '.' trimmed. `path.basenameNormalized`.
std::string SanitizeName(const std::string& name);

}  // namespace fleetwave::engine
