#include "engine/appset/generate.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <regex>

#include "engine/appset/application.h"
#include "engine/appset/application_schema.h"
#include "engine/appset/generator_params.h"
#include "engine/appset/template.h"

namespace fleetwave::engine {
namespace {

std::string TrimSlash(std::string s) {
  if (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

struct ParamSet {
  Json params;                       // what the template sees
  std::string origin;                // which generator entry produced it, for messages
  std::shared_ptr<const Json> tmpl;  // the template with its generator's override; null: the set's
};

Json ClusterParams(const ClusterInfo& c, const ClustersGenerator& g, const TemplateOptions& opts,
                   const InputLimits& limits) {
  Json p = Json::object();
  p["name"] = c.name;
  p["nameNormalized"] = c.name;
  p["server"] = c.server;
  Json labels = Json::object();
  for (const auto& [k, v] : c.labels) labels[k] = v;
  p["metadata"] = {{"labels", labels}, {"annotations", Json::object()}};
  // Argo CD renders `values` with the cluster's own parameters, so a value may use {{name}}.
  Json values = Json::object();
  for (const auto& [k, v] : g.values) {
    TemplateResult r = RenderTemplate(v, p, opts, limits);
    values[k] = r.ok() ? *r.text : v;
  }
  p["values"] = values;
  return p;
}

// Adds what `git` reads to `out`: its (repoURL, revision) once, with every include pattern of
// its files generator once (a matrix asks for the same repository on every row).
void AddRequest(const GitGenerator& git, std::vector<GitRequest>& out) {
  auto it = std::find_if(out.begin(), out.end(), [&](const GitRequest& r) {
    return r.repo_url == git.repo_url && r.revision == git.revision;
  });
  if (it == out.end()) it = out.insert(out.end(), GitRequest{git.repo_url, git.revision, {}});
  for (const auto& p : git.files) {
    if (p.exclude) continue;
    const bool known = std::any_of(it->file_patterns.begin(), it->file_patterns.end(),
                                   [&](const GitPathPattern& q) { return q.path == p.path; });
    if (!known) it->file_patterns.push_back(p);
  }
}

// Runs generators for one set; collects issues instead of stopping at the first.
class Runner {
 public:
  Runner(const ApplicationSet& set, const std::vector<ClusterInfo>* clusters,
         const GeneratorInputs* inputs, const TemplateOptions& opts, const InputLimits& limits,
         Issues& issues)
      : set_(set),
        clusters_(clusters),
        inputs_(inputs),
        opts_(opts),
        limits_(limits),
        issues_(issues) {}

  // True once some generator produced more parameter sets than limits.max_apps_per_appset:
  // the set generates nothing (the issue says how many).
  bool OverBudget() const { return over_budget_; }

  // Reports `count` sets where at most max_apps_per_appset may be, once per set. `at_least`:
  // counting stopped there (the real number is larger).
  bool WithinBudget(const Generator& g, std::size_t count, bool at_least = false) {
    if (count <= limits_.max_apps_per_appset) return true;
    if (!over_budget_) {
      issues_.push_back({set_.file, g.pos, g.path,
                         "applicationset \"" + set_.name + "\": generators produce " +
                             (at_least ? "at least " : "") + std::to_string(count) +
                             " applications, more than limits.maxAppsPerApplicationSet (" +
                             std::to_string(limits_.max_apps_per_appset) + ")"});
    }
    over_budget_ = true;
    return false;
  }

  // One generator entry: its own parameter sets, then its post-selector.
  std::vector<ParamSet> Run(const Generator& g) {
    std::vector<ParamSet> out;
    if (over_budget_) return out;
    switch (g.kind) {
      case Generator::Kind::kList:
        // Counted before anything is copied: a 100,000-element list is refused, not expanded.
        if (!WithinBudget(g, g.list.elements.size())) break;
        for (size_t j = 0; j < g.list.elements.size(); ++j) {
          out.push_back(
              {g.list.elements[j], g.path + ".list.elements[" + std::to_string(j) + "]", nullptr});
        }
        break;
      case Generator::Kind::kClusters:
        if (!clusters_) break;
        for (const ClusterInfo& c : *clusters_) {
          if (SelectorMatches(g.clusters.selector, c.labels)) {
            out.push_back({ClusterParams(c, g.clusters, opts_, limits_),
                           g.path + ".clusters (cluster " + c.name + ")", nullptr});
          }
        }
        break;
      case Generator::Kind::kGit:
        out = RunGit(g);
        break;
      case Generator::Kind::kMatrix:
        out = RunMatrix(g);
        break;
      case Generator::Kind::kMerge:
        out = RunMerge(g);
        break;
    }
    if (g.selector) {
      // Post-selector: matched against the flattened parameters, in both template modes.
      std::vector<ParamSet> kept;
      for (auto& ps : out) {
        if (SelectorMatches(*g.selector, FlattenParams(ps.params))) kept.push_back(std::move(ps));
      }
      out = std::move(kept);
    }
    return out;
  }

 private:
  void Fail(const Generator& g, const std::string& message) {
    issues_.push_back({set_.file, g.pos, g.path, message});
  }

  // In fasttemplate mode every parameter set is a flat map of strings, as Argo CD keeps it.
  Json Normal(const Json& params) const {
    return opts_.go_template ? params : FlatParamsObject(params);
  }

  std::vector<ParamSet> RunGit(const Generator& g) {
    std::vector<ParamSet> out;
    if (!inputs_) return out;  // repositories unknown to this caller: nothing generated
    if (!Resolved(g, "repoURL", g.git.repo_url) || !Resolved(g, "revision", g.git.revision)) {
      return out;
    }
    if (requests_) AddRequest(g.git, *requests_);
    auto it = inputs_->git.find({g.git.repo_url, g.git.revision});
    if (it == inputs_->git.end()) {
      Fail(g, "git generator: repository \"" + g.git.repo_url + "\" at revision \"" +
                  (g.git.revision.empty() ? "HEAD" : g.git.revision) + "\" was not read");
      return out;
    }
    if (it->second.error) {
      Fail(g, "git generator: " + it->second.error->ToString());
      if (repository_errors_) repository_errors_->push_back(*it->second.error);
      return out;
    }
    GitParamsResult r = g.git.is_files ? GitFileParams(g.git, it->second, opts_, limits_)
                                       : GitDirectoryParams(g.git, it->second, opts_, limits_);
    if (r.error) {
      Fail(g, "git generator: " + r.error->ToString());
      return out;
    }
    const std::string what = g.git.is_files ? ".git.files" : ".git.directories";
    for (size_t i = 0; i < r.params.size(); ++i) {
      out.push_back(
          {std::move(r.params[i]), g.path + what + " (set " + std::to_string(i) + ")", nullptr});
    }
    return out;
  }

  // False (and an issue naming the set and the field) when a git generator's repoURL or
  // revision is still a template once rendered: written outside a matrix's second child, or
  // naming a parameter the first child does not give (fasttemplate leaves "{{x}}" in place, a
  // Go template without missingkey=error writes "<no value>"). Reading it would only fail on a
  // URL that is not one.
  bool Resolved(const Generator& g, const char* field, const std::string& value) {
    if (value.find("{{") == std::string::npos && value.find("<no value>") == std::string::npos) {
      return true;
    }
    Issue issue{set_.file, g.pos, g.path + ".git." + field,
                "applicationset \"" + set_.name + "\": the git generator's " + field + " \"" +
                    value +
                    "\" is a template no parameter resolves (only the second generator of a "
                    "matrix is rendered, with each parameter set of the first)"};
    // Said once, not once per row of the matrix it is in.
    const bool said = std::any_of(issues_.begin(), issues_.end(), [&](const Issue& i) {
      return i.path == issue.path && i.message == issue.message;
    });
    if (!said) issues_.push_back(std::move(issue));
    return false;
  }

  // Renders every string field of a child generator with the first child's parameters
  // (Argo CD interpolates the second matrix child this way).
  bool Interpolate(Generator& g, const Json& params) {
    std::string error;
    auto render = [&](std::string& s) {
      if (!error.empty()) return;
      TemplateResult r = RenderTemplate(s, params, opts_, limits_);
      if (r.ok()) {
        s = *r.text;
      } else {
        error = r.error->message;
      }
    };
    switch (g.kind) {
      case Generator::Kind::kList:
        for (Json& e : g.list.elements) {
          RenderedDocument r = RenderTemplateDocument(e, params, opts_, limits_);
          if (!r.document) {
            error = r.error->message;
            break;
          }
          e = std::move(*r.document);
        }
        break;
      case Generator::Kind::kClusters:
        for (auto& [k, v] : g.clusters.values) render(v);
        break;
      case Generator::Kind::kGit:
        render(g.git.repo_url);
        render(g.git.revision);
        for (auto& p : g.git.directories) render(p.path);
        for (auto& p : g.git.files) render(p.path);
        for (auto& [k, v] : g.git.values) render(v);
        break;
      case Generator::Kind::kMatrix:
      case Generator::Kind::kMerge:
        for (Generator& c :
             g.kind == Generator::Kind::kMatrix ? g.matrix.generators : g.merge.generators) {
          if (!Interpolate(c, params)) return false;
        }
        break;
    }
    if (!error.empty()) {
      Fail(g, "cannot render with the first matrix generator's parameters: " + error);
      return false;
    }
    return true;
  }

  std::vector<ParamSet> RunMatrix(const Generator& g) {
    std::vector<ParamSet> out;
    if (g.matrix.generators.size() != 2) return out;  // reported when decoded
    const Generator& second = g.matrix.generators[1];
    const std::vector<ParamSet> firsts = Run(g.matrix.generators[0]);
    // The product is counted before it is built: a 1,000 x 1,000 matrix is refused having
    // built one row. A second child that uses no parameter of the first has the same sets in
    // every row, so the product is known exactly; otherwise counting stops at the budget.
    const bool independent = !Templated(second);
    for (const ParamSet& a : firsts) {
      if (over_budget_) return {};
      Generator child = second;
      if (!Interpolate(child, a.params)) continue;
      const std::vector<ParamSet> seconds = Run(child);
      if (over_budget_) return {};
      const std::size_t total = out.size() + seconds.size();
      if (independent && !seconds.empty() &&
          firsts.size() > limits_.max_apps_per_appset / seconds.size()) {
        WithinBudget(g, firsts.size() * seconds.size());
        return {};
      }
      if (!WithinBudget(g, total, /*at_least=*/true)) return {};
      for (const ParamSet& b : seconds) {
        ParamSet combined{Json(), a.origin + " x " + b.origin, nullptr};
        if (opts_.go_template) {
          combined.params = MergeOverride(a.params, b.params);
        } else {
          // fasttemplate: the same key with two different values is an error, as in Argo CD.
          combined.params = Normal(a.params);
          std::string clash;
          for (const auto& [k, v] : FlattenParams(b.params)) {
            if (combined.params.contains(k) && combined.params[k] != v && clash.empty()) {
              const Json& was = combined.params[k];
              clash = "matrix: parameter \"" + k + "\" has two different values (\"" +
                      (was.is_string() ? was.get<std::string>() : was.dump()) + "\" from " +
                      a.origin + ", \"" + v + "\" from " + b.origin + ")";
            }
            combined.params[k] = v;
          }
          if (!clash.empty()) {
            Fail(g, clash);
            continue;
          }
        }
        out.push_back(std::move(combined));
      }
    }
    return out;
  }

  // The value a parameter set has for the merge keys, as one comparable string.
  std::string MergeKeyOf(const std::vector<std::string>& keys, const Json& params) const {
    const auto flat = FlattenParams(params);
    Json key = Json::array();
    for (const auto& k : keys) {
      if (params.is_object() && params.contains(k)) {
        key.push_back(params[k]);
      } else if (auto it = flat.find(k); it != flat.end()) {
        key.push_back(it->second);
      } else {
        key.push_back(nullptr);
      }
    }
    return key.dump();
  }

  std::vector<ParamSet> RunMerge(const Generator& g) {
    std::vector<ParamSet> base;
    if (g.merge.generators.empty() || g.merge.merge_keys.empty()) return base;
    std::string keys;
    for (const auto& k : g.merge.merge_keys) keys += (keys.empty() ? "" : ", ") + k;
    // Every child's sets must be unique by the merge keys (Argo CD refuses the merge else).
    auto by_key = [&](const Generator& child, std::vector<ParamSet>& sets,
                      std::map<std::string, size_t>& index) {
      for (size_t i = 0; i < sets.size(); ++i) {
        const std::string key = MergeKeyOf(g.merge.merge_keys, sets[i].params);
        if (!index.emplace(key, i).second) {
          Fail(g, "merge: the parameter sets of " + child.path +
                      " are not unique by the merge keys (" + keys + "): " + key +
                      " appears more than once");
          return false;
        }
      }
      return true;
    };
    base = Run(g.merge.generators[0]);
    std::map<std::string, size_t> base_index;
    if (!by_key(g.merge.generators[0], base, base_index)) return {};
    for (auto& ps : base) ps.params = Normal(ps.params);
    for (size_t c = 1; c < g.merge.generators.size(); ++c) {
      std::vector<ParamSet> sets = Run(g.merge.generators[c]);
      std::map<std::string, size_t> index;
      if (!by_key(g.merge.generators[c], sets, index)) return {};
      for (const auto& [key, i] : index) {
        auto hit = base_index.find(key);
        if (hit == base_index.end()) continue;  // no base set to override: dropped
        ParamSet& target = base[hit->second];
        target.params = MergeOverride(target.params, Normal(sets[i].params));
        target.origin += " + " + sets[i].origin;
      }
    }
    return base;
  }

  // True when any string of `g` (nested generators too) holds a template action.
  static bool Templated(const Generator& g) {
    const auto has = [](const std::string& s) { return s.find("{{") != std::string::npos; };
    const auto in_json = [&](const Json& j) { return has(j.dump()); };
    switch (g.kind) {
      case Generator::Kind::kList:
        for (const Json& e : g.list.elements)
          if (in_json(e)) return true;
        return false;
      case Generator::Kind::kClusters:
        for (const auto& [k, v] : g.clusters.values)
          if (has(v)) return true;
        return false;
      case Generator::Kind::kGit:
        return true;  // reads a repository per row anyway
      case Generator::Kind::kMatrix:
      case Generator::Kind::kMerge:
        for (const Generator& c :
             g.kind == Generator::Kind::kMatrix ? g.matrix.generators : g.merge.generators)
          if (Templated(c)) return true;
        return false;
    }
    return true;
  }

  const ApplicationSet& set_;
  const std::vector<ClusterInfo>* clusters_;
  const GeneratorInputs* inputs_;
  TemplateOptions opts_;
  const InputLimits& limits_;
  Issues& issues_;
  bool over_budget_ = false;

 public:
  std::vector<GitRequest>* requests_ = nullptr;      // set: every repository a git generator reads
  std::vector<Error>* repository_errors_ = nullptr;  // set: the inputs' errors they met
};

// `requests` set: every repository the git generators read is added to it. `repository_errors`
// set: the errors of the inputs the git generators met are added to it.
std::vector<ParamSet> RunGenerators(const ApplicationSet& set,
                                    const std::vector<ClusterInfo>* clusters,
                                    const GeneratorInputs* inputs, const TemplateOptions& opts,
                                    const InputLimits& limits, Issues& issues,
                                    std::vector<GitRequest>* requests = nullptr,
                                    std::vector<Error>* repository_errors = nullptr) {
  std::vector<ParamSet> out;
  Runner runner(set, clusters, inputs, opts, limits, issues);
  runner.requests_ = requests;
  runner.repository_errors_ = repository_errors;
  for (const Generator& g : set.generators) {
    std::shared_ptr<const Json> tmpl;
    if (!g.template_override.is_null()) {
      tmpl = std::make_shared<const Json>(MergeTemplate(g.template_override, set.template_));
    }
    std::vector<ParamSet> sets = runner.Run(g);
    // The generators' sets add up: the budget is the set's, not each generator's.
    if (runner.OverBudget() || !runner.WithinBudget(g, out.size() + sets.size())) return {};
    for (ParamSet& ps : sets) {
      if (tmpl) ps.tmpl = tmpl;
      out.push_back(std::move(ps));
    }
  }
  return out;
}

bool IsTemplate(const std::string& s) { return s.find("{{") != std::string::npos; }

void CollectGitRequests(const Generator& g, std::vector<GitRequest>& out) {
  if (g.kind == Generator::Kind::kGit && !IsTemplate(g.git.repo_url) &&
      !IsTemplate(g.git.revision)) {
    AddRequest(g.git, out);
  }
  for (const Generator& c : g.matrix.generators) CollectGitRequests(c, out);
  for (const Generator& c : g.merge.generators) CollectGitRequests(c, out);
}

bool NeedsParameters(const Generator& g) {
  if (g.kind == Generator::Kind::kGit) {
    if (IsTemplate(g.git.repo_url) || IsTemplate(g.git.revision)) return true;
    for (const auto& p : g.git.files)
      if (IsTemplate(p.path)) return true;
  }
  for (const Generator& c : g.matrix.generators)
    if (NeedsParameters(c)) return true;
  for (const Generator& c : g.merge.generators)
    if (NeedsParameters(c)) return true;
  return false;
}

bool IsDnsSubdomain(const std::string& name) {
  static const std::regex re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return name.size() <= 253 && std::regex_match(name, re);
}

// `object[key]` when `object` is an object holding it, else null: never throws, whatever the
// template rendered.
const Json& Member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::map<std::string, std::string> StringMapOf(const Json& obj) {
  std::map<std::string, std::string> out;
  if (!obj.is_object()) return out;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

// Resolves an app's destination to one known cluster; returns an error message otherwise.
std::string ResolveDestination(const Json& dest, const std::vector<ClusterInfo>& clusters,
                               std::string& cluster) {
  std::vector<std::string> hits;
  std::string wanted;
  if (const Json& s = Member(dest, "server"); s.is_string()) {
    wanted = "server \"" + s.get<std::string>() + "\"";
    const std::string server = TrimSlash(s.get<std::string>());
    for (const auto& c : clusters) {
      if (TrimSlash(c.server) == server) hits.push_back(c.name);
    }
  } else if (const Json& n = Member(dest, "name"); n.is_string()) {
    wanted = "name \"" + n.get<std::string>() + "\"";
    for (const auto& c : clusters) {
      if (c.name == n.get<std::string>()) hits.push_back(c.name);
    }
  } else {
    return "destination has neither server nor name";
  }
  if (hits.size() == 1) {
    cluster = hits[0];
    return "";
  }
  if (hits.empty()) return "destination " + wanted + " matches no known cluster";
  std::string list;
  for (const auto& h : hits) list += (list.empty() ? "" : ", ") + h;
  return "destination " + wanted + " matches " + std::to_string(hits.size()) + " clusters: " + list;
}

}  // namespace

bool SelectorMatches(const LabelSelector& selector,
                     const std::map<std::string, std::string>& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& r : selector.match_expressions) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.op == "In" && !in) return false;
    if (r.op == "NotIn" && in) return false;
    if (r.op == "Exists" && !has) return false;
    if (r.op == "DoesNotExist" && has) return false;
    if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist") return false;
  }
  return true;
}

bool UsesClustersGenerator(const ApplicationSet& set) {
  std::function<bool(const Generator&)> uses = [&](const Generator& g) {
    if (g.kind == Generator::Kind::kClusters) return true;
    for (const Generator& c : g.matrix.generators)
      if (uses(c)) return true;
    for (const Generator& c : g.merge.generators)
      if (uses(c)) return true;
    return false;
  };
  return std::any_of(set.generators.begin(), set.generators.end(), uses);
}

std::vector<GitRequest> GitRequestsOf(const ApplicationSet& set) {
  std::vector<GitRequest> out;
  for (const Generator& g : set.generators) CollectGitRequests(g, out);
  return out;
}

bool GitRequestsNeedParameters(const ApplicationSet& set) {
  return std::any_of(set.generators.begin(), set.generators.end(), NeedsParameters);
}

std::vector<GitRequest> GitRequestsFor(const ApplicationSet& set,
                                       const std::vector<ClusterInfo>* clusters,
                                       const GeneratorInputs& inputs, const InputLimits& limits) {
  std::vector<GitRequest> out;
  Issues ignored;  // generating reports them
  RunGenerators(set, clusters, &inputs, {set.go_template, set.MissingKeyIsError()}, limits, ignored,
                &out);
  return out;
}

GenerateResult GenerateApplications(const ApplicationSet& set,
                                    const std::vector<ClusterInfo>* clusters) {
  return GenerateApplications(set, clusters, nullptr);
}

GenerateResult GenerateApplications(const ApplicationSet& set,
                                    const std::vector<ClusterInfo>* clusters,
                                    const GeneratorInputs* inputs, const InputLimits& limits) {
  GenerateResult result;
  const TemplateOptions opts{set.go_template, set.MissingKeyIsError()};
  std::map<std::string, std::string> origin_of;  // app name -> generator entry
  const std::vector<ParamSet> param_sets = RunGenerators(
      set, clusters, inputs, opts, limits, result.issues, nullptr, &result.repository_errors);
  std::sort(result.repository_errors.begin(), result.repository_errors.end(),
            [](const Error& a, const Error& b) { return a.ToString() < b.ToString(); });
  result.repository_errors.erase(
      std::unique(result.repository_errors.begin(), result.repository_errors.end()),
      result.repository_errors.end());
  for (const ParamSet& ps : param_sets) {
    const Json& tmpl = ps.tmpl ? *ps.tmpl : set.template_;
    RenderedDocument r = RenderTemplateDocument(tmpl, ps.params, opts, limits);
    if (!r.document) {
      result.issues.push_back(
          {set.file, set.template_pos,
           "spec.template" + (r.error->object.empty() ? "" : "." + r.error->object),
           r.error->message + " (parameters from " + ps.origin + ")"});
      continue;
    }
    const Json& rendered = *r.document;
    // Every field read below, and every one the daemon reads later, has the type Argo CD
    // gives it; a wrong type is an error on the app, never a default (or an exception).
    if (const auto problems = CheckApplicationFieldTypes(rendered); !problems.empty()) {
      for (const FieldTypeProblem& p : problems) {
        result.issues.push_back({set.file, set.template_pos, "spec.template." + p.path,
                                 p.message + " (parameters from " + ps.origin + ")"});
      }
      continue;
    }
    GeneratedApplication app;
    static const Json kNoMetadata = Json::object();
    const Json& md =
        Member(rendered, "metadata").is_object() ? Member(rendered, "metadata") : kNoMetadata;
    if (const Json& name = Member(md, "name"); name.is_string()) app.name = name.get<std::string>();
    if (!IsDnsSubdomain(app.name)) {
      result.issues.push_back(
          {set.file, set.template_pos, "spec.template.metadata.name",
           "Application name \"" + app.name +
               "\" is invalid: must be a lowercase RFC 1123 subdomain (parameters from " +
               ps.origin + ")"});
      continue;
    }
    if (auto [it, fresh] = origin_of.emplace(app.name, ps.origin); !fresh) {
      result.issues.push_back({set.file, set.template_pos, "spec.template.metadata.name",
                               "duplicate Application name \"" + app.name + "\" (generated from " +
                                   it->second + " and " + ps.origin + ")"});
      continue;
    }
    app.labels = StringMapOf(Member(md, "labels"));
    Json metadata = md;
    if (!set.namespace_.empty()) metadata["namespace"] = set.namespace_;
    const Json& spec = Member(rendered, "spec");
    app.object = {{"apiVersion", "argoproj.io/v1alpha1"},
                  {"kind", "Application"},
                  {"metadata", metadata},
                  {"spec", spec.is_object() ? spec : Json::object()}};
    // The rendered strings were within budget; the whole object (canonical JSON) must be too.
    if (const std::size_t size = app.object.dump().size(); size > limits.max_application_bytes) {
      result.issues.push_back({set.file, set.template_pos, "spec.template",
                               "Application \"" + app.name + "\" is " + std::to_string(size) +
                                   " bytes, larger than limits.maxApplicationBytes (" +
                                   std::to_string(limits.max_application_bytes) + " bytes)"});
      continue;
    }
    if (clusters) {
      const Json& dest = Member(app.object["spec"], "destination");
      if (auto err = ResolveDestination(dest, *clusters, app.cluster); !err.empty()) {
        result.issues.push_back({set.file, set.template_pos, "spec.template.spec.destination",
                                 "Application \"" + app.name + "\": " + err});
        continue;
      }
    }
    app.spec_fingerprint = SpecFingerprint(app.object["spec"]);
    result.apps.push_back(std::move(app));
  }
  std::sort(
      result.apps.begin(), result.apps.end(),
      [](const GeneratedApplication& a, const GeneratedApplication& b) { return a.name < b.name; });
  return result;
}

}  // namespace fleetwave::engine
