// Template rendering for ApplicationSet templates, in the two languages Argo CD offers:
//  - fasttemplate (the default): "{{param}}" replaced by the flattened parameter's value;
//    unknown parameters are left in place, as Argo CD leaves them.
//  - Go text/template (`goTemplate: true`): "{{.param}}", nested keys, if/else, pipelines and
//    the function subset of product.md §3.1 (index, default, lower, upper, replace, trunc,
//    quote, trimSuffix, trimPrefix). Anything else is rejected when the set is decoded, with
//    `unsupported template function X`, rather than failing later at generation time.
// Templates are parsed per string field, so every error can point at its YAML node.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/input_limits.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct TemplateOptions {
  bool go_template = false;
  bool missing_key_error = false;  // goTemplateOptions: ["missingkey=error"]
};

struct TemplateResult {
  std::optional<std::string> text;  // set when the template rendered
  std::optional<Error> error;       // otherwise: what is wrong (kInvalidInput, no object)
  bool ok() const { return text.has_value(); }
};

// Checks a template string without rendering it: syntax and supported functions.
// Returns what is wrong, or nullopt when the template is usable.
// Nesting deeper than limits.max_template_depth (parentheses, pipelines, if blocks) is an error.
std::optional<std::string> CheckTemplate(std::string_view text, const TemplateOptions& options,
                                         const InputLimits& limits = InputLimits{});

// Renders one template string. For fasttemplate, `params` may be nested: keys are flattened
// with dots ("metadata.labels.env") as Argo CD's generators flatten them. Nesting deeper than
// limits.max_template_depth, or an output (or any string a function builds on the way) larger
// than limits.max_application_bytes, is an error: evaluation stops before building it.
TemplateResult RenderTemplate(std::string_view text, const Json& params,
                              const TemplateOptions& options,
                              const InputLimits& limits = InputLimits{});

struct RenderedDocument {
  std::optional<Json> document;  // set when every string rendered
  // Otherwise what is wrong (kInvalidInput), its object the dotted path of the field that
  // failed ("" for the document itself).
  std::optional<Error> error;
};

// Renders every string (values, not keys) of a JSON document. The first error stops
// rendering; so does the document passing limits.max_application_bytes (its strings and keys
// share that budget).
RenderedDocument RenderTemplateDocument(const Json& in, const Json& params,
                                        const TemplateOptions& options,
                                        const InputLimits& limits = InputLimits{});

}  // namespace fleetwave::engine
