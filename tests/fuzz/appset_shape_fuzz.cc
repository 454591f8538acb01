// Structure-aware: an Argo CD ApplicationSet (the seeds are the corpus's, tests/vectors' and
// examples' sets) whose fields the custom mutator changes in type and depth: any node becomes
// a string, a number, a bool, null, a map or a list, is wrapped in deep nesting, or becomes a
// template (deep parentheses and if blocks, nested replace, references to the parameters) so
// that the template's output has the wrong type or size; list elements are multiplied and
// matrices built. Each input then runs the daemon's chain: load (bounded decoders), decode,
// validate, generate (against known clusters, and with a git repository whose files are the
// input itself), render of in-memory manifests into each app's destination, and the strict
// type check of each generated app. Issues are fine; an exception, a sanitizer report, a
// hang or an app over a budget is a bug (issue 30).
#include <cstdlib>
#include <cstring>
#include <random>

#include "engine/appset/application_schema.h"
#include "engine/appset/generate.h"
#include "engine/appset/render.h"
#include "engine/validation.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using fleetwave::engine::Json;

// Small budgets so that every one is reached quickly; the engine's defaults are larger.
fleetwave::engine::InputLimits Limits() {
  fleetwave::engine::InputLimits l;
  l.max_apps_per_appset = 200;
  l.max_application_bytes = 64 << 10;
  l.max_document_depth = 64;
  l.max_template_depth = 24;
  return l;
}

// Counts the nodes of `v` (to pick one uniformly) and returns the `k`th in pre-order.
Json* Nth(Json& v, std::size_t& k) {
  if (k == 0) return &v;
  --k;
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (Json* hit = Nth(it.value(), k)) return hit;
  } else if (v.is_array()) {
    for (auto& e : v)
      if (Json* hit = Nth(e, k)) return hit;
  }
  return nullptr;
}

std::size_t Count(const Json& v) {
  std::size_t n = 1;
  if (v.is_object() || v.is_array())
    for (const auto& e : v) n += Count(e);
  return n;
}

// A template string meant to build something hostile.
std::string HostileTemplate(std::mt19937& rng) {
  const int n = 1 + static_cast<int>(rng() % 40);
  switch (rng() % 8) {
    case 0:
      return "{{ " + std::string(n, '(') + ".env" + std::string(n, ')') + " }}";
    case 1: {
      std::string s;
      for (int i = 0; i < n; ++i) s += "{{if .env}}";
      s += "x";
      for (int i = 0; i < n; ++i) s += "{{end}}";
      return s;
    }
    case 2: {
      std::string s = "\"ab\"";
      for (int i = 0; i < n % 12; ++i) s = "(replace \"a\" \"aaaaaaaaaa\" " + s + ")";
      return "{{ " + s + " }}";
    }
    case 3:
      return "{{env}}{{name}}{{values.x}}{{ .env }}";
    case 4:
      return "{{ index .values \"list\" " + std::to_string(static_cast<int>(rng() % 5) - 1) + " }}";
    case 5:
      return std::string(static_cast<std::size_t>(n) * 97, 'x') + "{{.env}}";
    case 6:
      return "{{ default 5 .missing }}{{ trunc " + std::to_string(rng() % 3) + " .name }}";
    default:
      return "{{" + std::string(n, '{') + "}}";
  }
}

Json Wrap(Json v, int levels, bool map) {
  for (int i = 0; i < levels; ++i)
    v = map ? Json{{"k", std::move(v)}} : Json::array({std::move(v)});
  return v;
}

// One structural mutation of the document.
void Mutate(Json& doc, std::mt19937& rng) {
  std::size_t k = rng() % Count(doc);
  Json* node = Nth(doc, k);
  if (!node) return;
  switch (rng() % 12) {
    case 0:
      *node = static_cast<long long>(rng() % 1000) - 10;
      break;
    case 1:
      *node = (rng() & 1) == 1;
      break;
    case 2:
      *node = nullptr;
      break;
    case 3:
      *node = node->is_string() ? Json::array({*node}) : Json::array({"a", 5, true});
      break;
    case 4:
      *node = Json{{"name", *node}, {"a", Json::object()}};
      break;
    case 5:
      *node = node->dump();  // a number or map written as its text
      break;
    case 6:
      *node = Wrap(*node, 1 + static_cast<int>(rng() % 90), rng() & 1);
      break;
    case 7:
    case 8:
      *node = HostileTemplate(rng);
      break;
    case 9:
      if (node->is_array() && !node->empty()) {  // multiply a list (amplification)
        const Json first = (*node)[0];
        for (int i = static_cast<int>(rng() % 300); i > 0; --i) node->push_back(first);
      }
      break;
    case 10:
      if (node->is_object() && node->contains("list")) {  // a matrix of the list with itself
        *node = Json{{"matrix", {{"generators", Json::array({*node, *node})}}}};
      }
      break;
    default:
      *node = 1.5;
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using namespace fleetwave::engine;
  std::mt19937 rng(seed);
  const LoadedDocuments docs = LoadYamlDocuments(fleetwave::fuzz::Text(data, size), "m.yaml");
  if (docs.documents.empty() || rng() % 8 == 0) return LLVMFuzzerMutate(data, size, max_size);
  Json doc = YamlToJson(docs.documents.front());
  for (int i = 1 + static_cast<int>(rng() % 3); i > 0; --i) Mutate(doc, rng);
  const std::string out = (rng() & 1) ? JsonToYaml(doc) : doc.dump();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  const InputLimits limits = Limits();
  const std::string text = fleetwave::fuzz::Text(data, size);
  const LoadedDocuments loaded = LoadYamlDocuments(text, "f.yaml", limits);
  const std::vector<ClusterInfo> clusters = {
      {"in-cluster", "https://kubernetes.default.svc", {{"env", "dev"}}},
      {"prod", "https://10.0.0.2:6443", {{"env", "prod"}}}};
  ValidationInputs vinputs;
  (void)ValidateDocuments(loaded.documents, "f.yaml", vinputs);
  for (const YAML::Node& doc : loaded.documents) {
    const DecodedApplicationSet decoded = DecodeApplicationSet(doc, "f.yaml", limits);
    if (!decoded.appset) continue;
    (void)ValidateRolloutConfig(*decoded.appset);
    // Every git generator reads a repository whose files are this input.
    GeneratorInputs inputs;
    for (const GitRequest& r : GitRequestsOf(*decoded.appset)) {
      GitRepoContent content;
      content.directories = {"apps/a", "apps/b", "."};
      for (const char* f : {"config.json", "apps/a/config.yaml", "apps/b/c.json"})
        content.files[f] = text;
      inputs.git[{r.repo_url, r.revision}] = content;
    }
    const std::vector<ClusterInfo>* none = nullptr;
    for (const std::vector<ClusterInfo>* known : {&clusters, none}) {
      const GenerateResult generated =
          GenerateApplications(*decoded.appset, known, &inputs, limits);
      if (generated.apps.size() > limits.max_apps_per_appset) std::abort();
      for (const GeneratedApplication& app : generated.apps) {
        if (app.object.dump().size() > limits.max_application_bytes) std::abort();
        // What generation let through has Argo CD's types: the daemon reads it as typed.
        if (!CheckApplicationFieldTypes(app.object).empty()) std::abort();
        RenderInput in;
        in.app = {decoded.appset->name, app.name};
        const Json* ns = &app.object;
        for (const char* key : {"spec", "destination", "namespace"}) {
          if (!ns->is_object() || !ns->contains(key)) break;
          ns = &(*ns)[key];
        }
        if (ns->is_string()) in.destination_namespace = ns->get<std::string>();
        in.manifests.push_back({"m.yaml:1:1",
                                {{"apiVersion", "v1"},
                                 {"kind", "ConfigMap"},
                                 {"metadata", {{"name", "c"}}},
                                 {"data", {{"app", app.name}}}}});
        in.manifests.push_back({"m.yaml:2:1", app.object});
        (void)Render(in);
      }
    }
  }
  return 0;
}
