// The template engine on any template and parameters. Input layout: byte 0 picks the options
// (bit 0 goTemplate, bit 1 missingkey=error), then the template up to the first NUL, then
// the parameters as JSON (invalid JSON: a fixed parameter set). Errors are fine; an exception,
// a sanitizer report or a hang is a bug.
#include "engine/appset/template.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  if (size == 0) return 0;
  TemplateOptions options;
  options.go_template = data[0] & 1;
  options.missing_key_error = data[0] & 2;
  const std::string rest = fleetwave::fuzz::Text(data + 1, size - 1);
  const std::size_t nul = rest.find('\0');
  const std::string text = rest.substr(0, nul);
  Json params = Json(Json::value_t::discarded);
  if (nul != std::string::npos)
    params = Json::parse(rest.substr(nul + 1), nullptr, /*allow_exceptions=*/false);
  if (params.is_discarded())
    params = {{"name", "in-cluster"},
              {"server", "https://kubernetes.default.svc"},
              {"metadata", {{"labels", {{"env", "prod"}, {"tier", "web"}}}}},
              {"values", {{"replicas", 3}, {"list", {1, "two", nullptr}}}}};
  (void)CheckTemplate(text, options);
  (void)RenderTemplate(text, params, options);
  (void)RenderTemplateDocument(Json{{"a", text}, {"b", {text, 1}}}, params, options);
  return 0;
}
