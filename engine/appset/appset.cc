#include "engine/appset/appset.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <tuple>

#include "engine/appset/app_sync_policy.h"
#include "engine/appset/application_schema.h"
#include "engine/appset/template.h"
#include "engine/config.h"
#include "engine/rollingsync/max_failures.h"
#include "engine/rollingsync/max_update.h"

namespace fleetwave::engine {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Field(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string TypeOf(const YAML::Node& n) {
  if (n.IsMap()) return "object";
  if (n.IsSequence()) return "array";
  if (n.IsNull()) return "null";
  const Json v = YamlToJson(n);
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return "string";
}

// Collects issues while walking one document; never stops at the first problem.
class Decoder {
 public:
  Decoder(std::string file, const InputLimits& limits) : file_(std::move(file)), limits_(limits) {}

  const InputLimits& limits() const { return limits_; }

  void Add(const YAML::Node& node, const std::string& path, std::string message) {
    issues_.push_back({file_, PosOf(node), path, std::move(message)});
  }
  void Add(SourcePos pos, const std::string& path, std::string message) {
    issues_.push_back({file_, pos, path, std::move(message)});
  }

  bool Expect(const YAML::Node& n, const std::string& path, const std::string& want) {
    const std::string got = TypeOf(n);
    if (got == want || (want == "number" && got == "integer")) return true;
    Add(n, path, "wrong type: expected " + want + ", got " + got);
    return false;
  }

  // Reports every key of `map` not in `allowed` (and, with `unsupported`, the Argo CD fields
  // fleetwave deliberately does not implement, so the user learns why it is refused).
  void CheckKeys(const YAML::Node& map, const std::string& path,
                 const std::set<std::string>& allowed,
                 const std::set<std::string>& unsupported = {}) {
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (allowed.count(key)) continue;
      if (unsupported.count(key)) {
        Add(kv.first, Field(path, key), "field is not supported by fleetwave");
      } else {
        Add(kv.first, Field(path, key), "unknown field \"" + key + "\"");
      }
    }
  }

  // Strict, as Argo CD's (Go's) unmarshal: `name: 5` or `revision: 1` is a number, not the
  // string "5"; quote it to mean the string.
  std::optional<std::string> String(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar() || TypeOf(n) != "string") {
      Expect(n, path, "string");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<bool> Bool(const YAML::Node& n, const std::string& path) {
    if (!Expect(n, path, "boolean")) return std::nullopt;
    return YamlToJson(n).get<bool>();
  }

  std::optional<long long> Int(const YAML::Node& n, const std::string& path) {
    if (!Expect(n, path, "integer")) return std::nullopt;
    return YamlToJson(n).get<long long>();
  }

  std::map<std::string, std::string> StringMap(const YAML::Node& n, const std::string& path) {
    std::map<std::string, std::string> out;
    if (!Expect(n, path, "object")) return out;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (auto v = String(kv.second, Field(path, key))) out[key] = *v;
    }
    return out;
  }

  std::vector<std::string> StringList(const YAML::Node& n, const std::string& path) {
    std::vector<std::string> out;
    if (!Expect(n, path, "array")) return out;
    for (size_t i = 0; i < n.size(); ++i) {
      if (auto v = String(n[i], Index(path, i))) out.push_back(*v);
    }
    return out;
  }

  Issues& issues() { return issues_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  const InputLimits& limits_;
  Issues issues_;
};

// The node at `at` (keys and indexes, as FieldTypeProblem gives them) under `n`.
YAML::Node NodeAt(YAML::Node n, const std::vector<Json>& at) {
  // The JSON and the YAML may disagree (a duplicate key: YamlToJson keeps the last, yaml-cpp
  // finds the first), so every step checks the node's kind: operator[] on a scalar throws.
  // Found by appset_fuzz; pinned by strict_types_test.cc, DuplicateKeysNeverThrow.
  for (const Json& step : at) {
    YAML::Node next;
    if (step.is_string() && n.IsMap()) {
      next = n[step.get<std::string>()];
    } else if (step.is_number() && n.IsSequence() && step.get<size_t>() < n.size()) {
      next = n[static_cast<std::size_t>(step.get<size_t>())];
    } else {
      break;
    }
    if (!next.IsDefined()) break;
    n.reset(next);  // not `n = next`: assigning a YAML::Node overwrites the node it refers to
  }
  return n;
}

// The Application field types of a template (or a generator's override), each wrong one an
// issue at its node: what Argo CD would refuse is refused here, not deployed with a default.
void CheckFieldTypes(Decoder& d, const YAML::Node& n, const std::string& path, const Json& doc) {
  for (const FieldTypeProblem& p : CheckApplicationFieldTypes(doc))
    d.Add(NodeAt(n, p.at), Field(path, p.path), p.message);
}

LabelSelectorRequirement DecodeRequirement(Decoder& d, const YAML::Node& n,
                                           const std::string& path) {
  LabelSelectorRequirement r;
  if (!d.Expect(n, path, "object")) return r;
  d.CheckKeys(n, path, {"key", "operator", "values"});
  if (n["key"]) {
    r.key = d.String(n["key"], Field(path, "key")).value_or("");
  } else {
    d.Add(n, Field(path, "key"), "required field is missing");
  }
  if (n["operator"]) {
    r.op = d.String(n["operator"], Field(path, "operator")).value_or("");
    r.op_pos = PosOf(n["operator"]);
  } else {
    d.Add(n, Field(path, "operator"), "required field is missing");
  }
  if (n["values"]) r.values = d.StringList(n["values"], Field(path, "values"));
  return r;
}

std::vector<LabelSelectorRequirement> DecodeRequirements(Decoder& d, const YAML::Node& n,
                                                         const std::string& path) {
  std::vector<LabelSelectorRequirement> out;
  if (!d.Expect(n, path, "array")) return out;
  for (size_t i = 0; i < n.size(); ++i) out.push_back(DecodeRequirement(d, n[i], Index(path, i)));
  return out;
}

// The rollout-safety fields of a step (issue 29), fleetwave extensions. Unlike maxUpdate, whose
// invalid values Argo CD gives a meaning, a wrong value here refuses the set: a failure budget
// or a soak read as something else would let a bad revision through.
void DecodeSafetyFields(Decoder& d, const YAML::Node& n, const std::string& path,
                        RolloutStep& step) {
  if (const YAML::Node mf = n["maxFailures"]) {
    const std::string p = Field(path, "maxFailures");
    if (!mf.IsScalar() || mf.IsNull()) {
      d.Add(mf, p, "wrong type: expected integer or string, got " + TypeOf(mf));
    } else {
      const Json v = YamlToJson(mf);
      IntOrString value;
      if (v.is_number_integer()) {
        value.int_value = v.get<long long>();
      } else {
        value.is_int = false;
        value.string_value = mf.Scalar();
      }
      if (v.is_boolean() || (v.is_number() && !v.is_number_integer())) {
        d.Add(mf, p, "wrong type: expected integer or string, got " + TypeOf(mf));
      } else if (auto why = InvalidMaxFailures(value)) {
        d.Add(mf, p,
              "invalid value \"" + MaxUpdateAsWritten(value) + "\": " + *why +
                  " (expected an integer >= 0 or a percentage such as \"10%\")");
      } else {
        step.max_failures = value;
      }
    }
  }
  if (const YAML::Node mst = n["minSuccessTime"]) {
    const std::string p = Field(path, "minSuccessTime");
    if (auto v = d.String(mst, p)) {
      const auto seconds = ParseDurationSeconds(*v);
      if (!seconds) {
        d.Add(mst, p, "invalid duration \"" + *v + "\" (examples: 90s, 10m, 1h30m)");
      } else if (*seconds < 1) {
        d.Add(mst, p, "must be at least 1s");
      } else {
        step.min_success_seconds = *seconds;
      }
    }
  }
  if (const YAML::Node of = n["onFailure"]) {
    const std::string p = Field(path, "onFailure");
    if (auto v = d.String(of, p)) {
      if (*v == "Rollback") {
        step.on_failure = RolloutStep::OnFailure::kRollback;
      } else if (*v != "Halt") {
        d.Add(of, p, "unsupported value \"" + *v + "\" (supported: Halt, Rollback)");
      }
    }
  }
  if (const YAML::Node a = n["analysis"]) {
    // The pure rules decode it (engine/rollingsync/analysis.h); each issue points at its field's
    // node.
    const std::string p = Field(path, "analysis");
    Issues issues;
    step.analysis = DecodeAnalysis(YamlToJson(a), p, issues);
    for (Issue& issue : issues) {
      const std::string key =
          issue.path.size() > p.size() + 1 ? issue.path.substr(p.size() + 1) : "";
      const YAML::Node at = a.IsMap() && !key.empty() && a[key] ? a[key] : a;
      d.Add(at, issue.path, std::move(issue.message));
    }
  }
}

RolloutStep DecodeStep(Decoder& d, const YAML::Node& n, const std::string& path) {
  RolloutStep step;
  step.pos = PosOf(n);
  if (!d.Expect(n, path, "object")) return step;
  d.CheckKeys(n, path,
              {"matchExpressions", "maxUpdate", "progressDeadlineSeconds", "maxFailures",
               "minSuccessTime", "onFailure", "analysis"});
  if (n["matchExpressions"]) {
    step.match_expressions =
        DecodeRequirements(d, n["matchExpressions"], Field(path, "matchExpressions"));
  }
  if (const YAML::Node mu = n["maxUpdate"]) {
    step.max_update_pos = PosOf(mu);
    if (!mu.IsScalar()) {
      d.Expect(mu, Field(path, "maxUpdate"), "integer or string");
    } else {
      const Json v = YamlToJson(mu);
      IntOrString value;
      if (v.is_number_integer()) {
        value.int_value = v.get<long long>();
      } else {
        value.is_int = false;
        value.string_value = mu.Scalar();
      }
      step.max_update = value;
    }
  }
  if (const YAML::Node pds = n["progressDeadlineSeconds"]) {
    const std::string p = Field(path, "progressDeadlineSeconds");
    if (auto v = d.Int(pds, p)) {
      if (*v <= 0) {
        d.Add(pds, p, "must be greater than 0");
      } else {
        step.progress_deadline_seconds = *v;
      }
    }
  }
  DecodeSafetyFields(d, n, path, step);
  return step;
}

Strategy DecodeStrategy(Decoder& d, const YAML::Node& n, const std::string& path) {
  Strategy s;
  if (!d.Expect(n, path, "object")) return s;
  d.CheckKeys(n, path, {"type", "rollingSync", "deletionOrder"});
  if (const YAML::Node t = n["type"]) {
    if (auto v = d.String(t, Field(path, "type"))) {
      s.type = *v;
      if (*v != "AllAtOnce" && *v != "RollingSync") {
        d.Add(t, Field(path, "type"),
              "unsupported value \"" + *v + "\" (supported: AllAtOnce, RollingSync)");
      }
    }
  }
  if (const YAML::Node o = n["deletionOrder"]) {
    if (auto v = d.String(o, Field(path, "deletionOrder"))) {
      s.deletion_order = *v;
      const std::string l = Lower(*v);
      if (l != "allatonce" && l != "reverse") {
        d.Add(o, Field(path, "deletionOrder"),
              "unsupported value \"" + *v + "\" (supported: AllAtOnce, Reverse)");
      }
    }
  }
  if (const YAML::Node rs = n["rollingSync"]) {
    const std::string rp = Field(path, "rollingSync");
    if (d.Expect(rs, rp, "object")) {
      d.CheckKeys(rs, rp, {"steps"});
      if (const YAML::Node steps = rs["steps"]) {
        const std::string sp = Field(rp, "steps");
        if (d.Expect(steps, sp, "array")) {
          for (size_t i = 0; i < steps.size(); ++i)
            s.steps.push_back(DecodeStep(d, steps[i], Index(sp, i)));
        }
      }
    }
  }
  return s;
}

// Kubernetes label syntax (apimachinery's validation): a value is empty or at most 63
// characters of [A-Za-z0-9-_.] beginning and ending with an alphanumeric; a key is such a
// name (non-empty), optionally behind a DNS-subdomain prefix and '/'. Argo CD rejects a
// selector that breaks these rules instead of matching nothing (generators_selector_test).
bool IsLabelName(const std::string& s) {
  static const std::regex re("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  return s.size() <= 63 && std::regex_match(s, re);
}

bool IsLabelValue(const std::string& s) { return s.empty() || IsLabelName(s); }

bool IsLabelKey(const std::string& s) {
  const size_t slash = s.find('/');
  if (slash == std::string::npos) return IsLabelName(s);
  static const std::regex dns("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  const std::string prefix = s.substr(0, slash);
  return prefix.size() <= 253 && std::regex_match(prefix, dns) && IsLabelName(s.substr(slash + 1));
}

const char* kLabelValueRule =
    "must be empty or at most 63 characters of [A-Za-z0-9-_.], beginning and ending with an "
    "alphanumeric character";
const char* kLabelKeyRule =
    "must be a name of at most 63 characters of [A-Za-z0-9-_.], beginning and ending with an "
    "alphanumeric character, with an optional DNS subdomain prefix and '/'";

void CheckLabelKey(Decoder& d, const YAML::Node& at, const std::string& path,
                   const std::string& key) {
  if (!IsLabelKey(key)) d.Add(at, path, "invalid label key \"" + key + "\": " + kLabelKeyRule);
}

void CheckLabelValue(Decoder& d, const YAML::Node& at, const std::string& path,
                     const std::string& value) {
  if (!IsLabelValue(value)) {
    d.Add(at, path, "invalid label value \"" + value + "\": " + kLabelValueRule);
  }
}

// A label selector (cluster generator or post-selector), validated as Kubernetes validates
// one: keys, values and operators that could never select anything are errors naming their
// path (generators_selector_test, SelectorValidation).
LabelSelector DecodeSelector(Decoder& d, const YAML::Node& n, const std::string& path) {
  LabelSelector sel;
  if (!d.Expect(n, path, "object")) return sel;
  d.CheckKeys(n, path, {"matchLabels", "matchExpressions"});
  if (const YAML::Node ml = n["matchLabels"]) {
    const std::string mp = Field(path, "matchLabels");
    sel.match_labels = d.StringMap(ml, mp);
    if (ml.IsMap()) {
      for (const auto& kv : ml) {
        const std::string key = kv.first.Scalar();
        CheckLabelKey(d, kv.first, Field(mp, key), key);
        if (kv.second.IsScalar()) CheckLabelValue(d, kv.second, Field(mp, key), kv.second.Scalar());
      }
    }
  }
  if (const YAML::Node me = n["matchExpressions"]) {
    const std::string mp = Field(path, "matchExpressions");
    sel.match_expressions = DecodeRequirements(d, me, mp);
    for (size_t i = 0; i < sel.match_expressions.size(); ++i) {
      const auto& r = sel.match_expressions[i];
      const std::string rp = Index(mp, i);
      const YAML::Node rn = me[i];
      if (rn["key"] && rn["key"].IsScalar()) CheckLabelKey(d, rn["key"], Field(rp, "key"), r.key);
      static const std::set<std::string> ops = {"In", "NotIn", "Exists", "DoesNotExist"};
      if (!r.op.empty() && !ops.count(r.op)) {
        d.Add(r.op_pos, Field(rp, "operator"),
              "unsupported value \"" + r.op + "\" (supported: In, NotIn, Exists, DoesNotExist)");
        continue;
      }
      const bool set_op = r.op == "In" || r.op == "NotIn";
      if (set_op && r.values.empty()) {
        d.Add(rn, Field(rp, "values"), "must be non-empty for operator " + r.op);
      } else if (!set_op && !r.op.empty() && !r.values.empty()) {
        d.Add(rn["values"], Field(rp, "values"), "must be empty for operator " + r.op);
      }
      if (const YAML::Node vs = rn["values"]; vs && vs.IsSequence()) {
        for (size_t j = 0; j < vs.size(); ++j) {
          if (vs[j].IsScalar())
            CheckLabelValue(d, vs[j], Index(Field(rp, "values"), j), vs[j].Scalar());
        }
      }
    }
  }
  return sel;
}

// True when every leaf is empty. Argo CD's CRD defaults each generator's `template` to
// {metadata: {}, spec: {destination: {}, project: ""}}, so `kubectl get -o yaml` prints one
// on every generator: that is no override at all.
bool IsEmptyDocument(const YAML::Node& n) {
  if (n.IsMap() || n.IsSequence()) {
    for (const auto& e : n) {
      if (!IsEmptyDocument(n.IsMap() ? e.second : e)) return false;
    }
    return true;
  }
  return n.IsNull() || (n.IsScalar() && n.Scalar().empty());
}

void CheckTemplateStrings(Decoder& d, const YAML::Node& n, const std::string& path,
                          const TemplateOptions& opts);

// `<gen>.template`: a partial Application template merged over the set's template. Only its
// shape and template strings are checked here; required fields come from the merged result.
Json DecodeTemplateOverride(Decoder& d, const YAML::Node& n, const std::string& path,
                            const TemplateOptions& opts, bool nested) {
  if (!n || IsEmptyDocument(n)) return Json();
  if (!d.Expect(n, path, "object")) return Json();
  if (nested) {
    // Argo CD ignores templates of generators inside matrix/merge; refusing says so instead
    // of silently dropping what the user wrote.
    d.Add(n, path,
          "template overrides on generators inside matrix or merge are not applied (Argo CD "
          "ignores them); put the template on the matrix or merge entry");
    return Json();
  }
  d.CheckKeys(n, path, {"metadata", "spec"});
  Json doc = YamlToJson(n);
  CheckFieldTypes(d, n, path, doc);
  CheckTemplateStrings(d, n, path, opts);
  return doc;
}

std::vector<GitPathPattern> DecodeGitPatterns(Decoder& d, const YAML::Node& n,
                                              const std::string& path) {
  std::vector<GitPathPattern> out;
  if (!d.Expect(n, path, "array")) return out;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string ip = Index(path, i);
    if (!d.Expect(n[i], ip, "object")) continue;
    d.CheckKeys(n[i], ip, {"path", "exclude"});
    GitPathPattern p;
    if (!n[i]["path"]) {
      d.Add(n[i], Field(ip, "path"), "required field is missing");
      continue;
    }
    p.path = d.String(n[i]["path"], Field(ip, "path")).value_or("");
    if (n[i]["exclude"]) p.exclude = d.Bool(n[i]["exclude"], Field(ip, "exclude")).value_or(false);
    out.push_back(std::move(p));
  }
  return out;
}

void DecodeGit(Decoder& d, const YAML::Node& n, const std::string& path, GitGenerator& git) {
  d.CheckKeys(n, path,
              {"repoURL", "revision", "directories", "files", "pathParamPrefix", "values",
               "template", "requeueAfterSeconds"});
  if (!n["repoURL"]) {
    d.Add(n, Field(path, "repoURL"), "required field is missing");
  } else {
    git.repo_url = d.String(n["repoURL"], Field(path, "repoURL")).value_or("");
  }
  if (n["revision"]) git.revision = d.String(n["revision"], Field(path, "revision")).value_or("");
  if (n["directories"] && n["files"]) {
    d.Add(n["files"], Field(path, "files"), "directories and files are mutually exclusive");
  } else if (n["directories"]) {
    git.directories = DecodeGitPatterns(d, n["directories"], Field(path, "directories"));
  } else if (n["files"]) {
    git.is_files = true;
    git.files = DecodeGitPatterns(d, n["files"], Field(path, "files"));
  } else {
    d.Add(n, Field(path, "directories"), "one of directories or files is required");
  }
  if (n["pathParamPrefix"]) {
    git.path_param_prefix =
        d.String(n["pathParamPrefix"], Field(path, "pathParamPrefix")).value_or("");
  }
  if (n["values"]) git.values = d.StringMap(n["values"], Field(path, "values"));
}

const char* kSupportedGenerators = "supported: list, clusters, git, matrix, merge";

std::vector<Generator> DecodeGeneratorList(Decoder& d, const YAML::Node& n, const std::string& path,
                                           const TemplateOptions& opts, int depth);

// One entry of a generators list: exactly one generator plus an optional post-selector.
// `depth` counts enclosing matrix/merge entries (Argo CD nests them one level only).
std::optional<Generator> DecodeGeneratorEntry(Decoder& d, const YAML::Node& g,
                                              const std::string& gp, const TemplateOptions& opts,
                                              int depth) {
  if (!d.Expect(g, gp, "object")) return std::nullopt;
  static const std::set<std::string> known_unsupported = {"scmProvider", "pullRequest",
                                                          "clusterDecisionResource", "plugin"};
  std::optional<Generator> out;
  bool found = false;
  for (const auto& kv : g) {
    const std::string key = kv.first.Scalar();
    const std::string kp = Field(gp, key);
    if (key == "selector") continue;
    if (known_unsupported.count(key)) {
      d.Add(kv.first, kp, "unsupported generator \"" + key + "\" (" + kSupportedGenerators + ")");
      continue;
    }
    if (key != "list" && key != "clusters" && key != "git" && key != "matrix" && key != "merge") {
      d.Add(kv.first, kp, "unknown generator \"" + key + "\" (" + kSupportedGenerators + ")");
      continue;
    }
    if (found) {
      d.Add(kv.first, kp, "a generator entry must have exactly one generator");
      continue;
    }
    found = true;
    if (!d.Expect(kv.second, kp, "object")) continue;
    Generator gen;
    gen.pos = PosOf(kv.second);
    gen.path = gp;
    const YAML::Node body = kv.second;
    gen.template_override =
        DecodeTemplateOverride(d, body["template"], Field(kp, "template"), opts, depth > 0);
    if (key == "list") {
      gen.kind = Generator::Kind::kList;
      d.CheckKeys(body, kp, {"elements", "template"}, {"elementsYaml"});
      if (const YAML::Node el = body["elements"];
          el && d.Expect(el, Field(kp, "elements"), "array")) {
        // Each element is one Application: more than the set may generate is refused here,
        // before they are copied (and again when generating, where matrices multiply).
        if (el.size() > d.limits().max_apps_per_appset) {
          d.Add(el, Field(kp, "elements"),
                std::to_string(el.size()) +
                    " elements, more than limits.maxAppsPerApplicationSet (" +
                    std::to_string(d.limits().max_apps_per_appset) + ")");
          continue;
        }
        for (size_t j = 0; j < el.size(); ++j) {
          if (d.Expect(el[j], Index(Field(kp, "elements"), j), "object"))
            gen.list.elements.push_back(YamlToJson(el[j]));
        }
      }
    } else if (key == "clusters") {
      gen.kind = Generator::Kind::kClusters;
      d.CheckKeys(body, kp, {"selector", "values", "template"}, {"flatList"});
      if (body["selector"])
        gen.clusters.selector = DecodeSelector(d, body["selector"], Field(kp, "selector"));
      if (body["values"]) gen.clusters.values = d.StringMap(body["values"], Field(kp, "values"));
    } else if (key == "git") {
      gen.kind = Generator::Kind::kGit;
      DecodeGit(d, body, kp, gen.git);
    } else {
      const bool matrix = key == "matrix";
      gen.kind = matrix ? Generator::Kind::kMatrix : Generator::Kind::kMerge;
      d.CheckKeys(body, kp,
                  matrix ? std::set<std::string>{"generators", "template"}
                         : std::set<std::string>{"generators", "mergeKeys", "template"});
      if (depth >= 2) {
        d.Add(kv.first, kp, "matrix and merge generators nest one level deep only (as in Argo CD)");
        continue;
      }
      std::vector<Generator> children;
      const std::string cp = Field(kp, "generators");
      if (!body["generators"]) {
        d.Add(body, cp, "required field is missing");
      } else {
        children = DecodeGeneratorList(d, body["generators"], cp, opts, depth + 1);
      }
      if (matrix) {
        if (body["generators"] && body["generators"].IsSequence() &&
            body["generators"].size() != 2) {
          d.Add(body["generators"], cp,
                "a matrix needs exactly two child generators, found " +
                    std::to_string(body["generators"].size()));
        }
        gen.matrix.generators = std::move(children);
      } else {
        if (body["generators"] && body["generators"].IsSequence() &&
            body["generators"].size() < 2) {
          d.Add(body["generators"], cp,
                "a merge needs at least two child generators, found " +
                    std::to_string(body["generators"].size()));
        }
        if (!body["mergeKeys"]) {
          d.Add(body, Field(kp, "mergeKeys"), "required field is missing");
        } else {
          gen.merge.merge_keys = d.StringList(body["mergeKeys"], Field(kp, "mergeKeys"));
          if (body["mergeKeys"].IsSequence() && gen.merge.merge_keys.empty())
            d.Add(body["mergeKeys"], Field(kp, "mergeKeys"), "at least one merge key is required");
        }
        gen.merge.generators = std::move(children);
      }
    }
    out = std::move(gen);
  }
  if (!found && g.size() == 0) {
    d.Add(g, gp, std::string("empty generator (") + kSupportedGenerators + ")");
  }
  if (out && g["selector"]) out->selector = DecodeSelector(d, g["selector"], Field(gp, "selector"));
  return out;
}

std::vector<Generator> DecodeGeneratorList(Decoder& d, const YAML::Node& n, const std::string& path,
                                           const TemplateOptions& opts, int depth) {
  std::vector<Generator> out;
  if (!d.Expect(n, path, "array")) return out;
  for (size_t i = 0; i < n.size(); ++i) {
    if (auto g = DecodeGeneratorEntry(d, n[i], Index(path, i), opts, depth))
      out.push_back(std::move(*g));
  }
  return out;
}

// Every string of the template must parse in the set's template language.
void CheckTemplateStrings(Decoder& d, const YAML::Node& n, const std::string& path,
                          const TemplateOptions& opts) {
  if (n.IsMap()) {
    for (const auto& kv : n)
      CheckTemplateStrings(d, kv.second, Field(path, kv.first.Scalar()), opts);
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) CheckTemplateStrings(d, n[i], Index(path, i), opts);
  } else if (n.IsScalar()) {
    if (auto err = CheckTemplate(n.Scalar(), opts, d.limits())) d.Add(n, path, *err);
  }
}

void DecodeTemplate(Decoder& d, const YAML::Node& n, const std::string& path, ApplicationSet& set) {
  set.template_pos = PosOf(n);
  if (!d.Expect(n, path, "object")) return;
  d.CheckKeys(n, path, {"metadata", "spec"});
  const YAML::Node md = n["metadata"];
  const std::string mp = Field(path, "metadata");
  if (!md) {
    d.Add(n, mp, "required field is missing");
  } else if (md.IsMap()) {
    if (!md["name"]) d.Add(md, Field(mp, "name"), "required field is missing");
  }
  const YAML::Node spec = n["spec"];
  const std::string sp = Field(path, "spec");
  if (!spec) {
    d.Add(n, sp, "required field is missing");
  } else if (spec.IsMap()) {
    const YAML::Node dest = spec["destination"];
    if (!dest) {
      d.Add(spec, Field(sp, "destination"), "required field is missing");
    } else if (dest.IsMap()) {
      if (!dest["server"] && !dest["name"]) {
        d.Add(dest, Field(sp, "destination"), "one of server or name is required");
      } else if (dest["server"] && dest["name"]) {
        d.Add(dest, Field(sp, "destination"), "server and name are mutually exclusive");
      }
    }
    if (!spec["source"] && !spec["sources"]) {
      d.Add(spec, Field(sp, "source"), "one of source or sources is required");
    } else if (spec["source"] && spec["sources"]) {
      d.Add(spec, Field(sp, "sources"), "source and sources are mutually exclusive");
    }
    // Helm sources are refused until supported, rather than applied as if they were plain
    // directories (generators_test HelmSourcesAreRefused; Chart.yaml paths: sources/kustomize).
    const auto refuse_helm = [&](const YAML::Node& src, const std::string& path) {
      if (!src.IsMap()) return;
      for (const char* key : {"helm", "chart"}) {
        if (src[key]) {
          d.Add(src[key], Field(path, key),
                "Helm sources are not supported by fleetwave yet (use a directory of manifests "
                "or a kustomization)");
        }
      }
    };
    if (spec["source"]) refuse_helm(spec["source"], Field(sp, "source"));
    if (const YAML::Node many = spec["sources"]; many && many.IsSequence()) {
      for (size_t i = 0; i < many.size(); ++i) refuse_helm(many[i], Index(Field(sp, "sources"), i));
    }
    if (const YAML::Node id = spec["ignoreDifferences"]; id && id.IsSequence()) {
      for (size_t i = 0; i < id.size(); ++i) {
        const std::string ip = Index(Field(sp, "ignoreDifferences"), i);
        if (!id[i].IsMap()) continue;
        d.CheckKeys(id[i], ip, {"group", "kind", "name", "namespace", "jsonPointers"},
                    {"jqPathExpressions", "managedFieldsManagers"});
      }
    }
  }
  set.template_ = YamlToJson(n);
  // Types of every field (metadata, destination, sources, syncPolicy, ...), then templates.
  CheckFieldTypes(d, n, path, set.template_);
  CheckTemplateStrings(d, n, path, {set.go_template, set.MissingKeyIsError()});
}

}  // namespace

bool Strategy::ReverseDeletion() const {
  return RollingSyncEnabled() && Lower(deletion_order) == "reverse";
}

bool ApplicationSet::MissingKeyIsError() const {
  return std::find(go_template_options.begin(), go_template_options.end(), "missingkey=error") !=
         go_template_options.end();
}

bool IsValidMaxUpdate(const IntOrString& value) {
  if (value.is_int) return value.int_value >= 0;
  // By hand, not std::regex: libstdc++'s matcher recurses once per character, so a long
  // user-written value would overflow the stack.
  const std::string& v = value.string_value;
  return v.size() >= 2 && v.back() == '%' &&
         std::all_of(v.begin(), v.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
}

DecodedApplicationSet DecodeApplicationSet(const YAML::Node& doc, const std::string& file,
                                           const InputLimits& limits) {
  Decoder d(file, limits);
  DecodedApplicationSet out;
  if (!d.Expect(doc, "", "object")) {
    out.issues = std::move(d.issues());
    return out;
  }
  ApplicationSet set;
  set.file = file;
  const auto api = doc["apiVersion"] ? d.String(doc["apiVersion"], "apiVersion") : std::nullopt;
  if (!doc["apiVersion"]) {
    d.Add(doc, "apiVersion", "required field is missing");
  } else if (api && *api != "argoproj.io/v1alpha1") {
    d.Add(doc["apiVersion"], "apiVersion",
          "unsupported value \"" + *api + "\" (supported: argoproj.io/v1alpha1)");
  }
  const auto kind = doc["kind"] ? d.String(doc["kind"], "kind") : std::nullopt;
  if (!doc["kind"]) {
    d.Add(doc, "kind", "required field is missing");
  } else if (kind && *kind != "ApplicationSet") {
    d.Add(doc["kind"], "kind", "unsupported value \"" + *kind + "\" (supported: ApplicationSet)");
  }
  const YAML::Node md = doc["metadata"];
  if (!md) {
    d.Add(doc, "metadata", "required field is missing");
  } else if (d.Expect(md, "metadata", "object")) {
    if (!md["name"]) {
      d.Add(md, "metadata.name", "required field is missing");
    } else {
      set.name = d.String(md["name"], "metadata.name").value_or("");
    }
    if (md["namespace"])
      set.namespace_ = d.String(md["namespace"], "metadata.namespace").value_or("");
    if (md["annotations"]) {
      const auto annotations = d.StringMap(md["annotations"], "metadata.annotations");
      if (auto it = annotations.find(kDriftAnnotation); it != annotations.end()) {
        if (it->second == "heal" || it->second == "report") {
          set.drift_policy = it->second;
        } else {
          d.Add(md["annotations"][kDriftAnnotation],
                std::string("metadata.annotations.") + kDriftAnnotation,
                "unsupported value \"" + it->second + "\" (supported: heal, report)");
        }
      }
    }
  }
  const YAML::Node spec = doc["spec"];
  if (!spec) {
    d.Add(doc, "spec", "required field is missing");
  } else if (d.Expect(spec, "spec", "object")) {
    d.CheckKeys(spec, "spec",
                {"generators", "template", "goTemplate", "goTemplateOptions", "strategy",
                 "syncPolicy", "ignoreApplicationDifferences"},
                {"templatePatch", "preservedFields", "applyNestedSelectors"});
    if (spec["goTemplate"])
      set.go_template = d.Bool(spec["goTemplate"], "spec.goTemplate").value_or(false);
    if (const YAML::Node o = spec["goTemplateOptions"]) {
      set.go_template_options = d.StringList(o, "spec.goTemplateOptions");
      for (size_t i = 0; i < set.go_template_options.size(); ++i) {
        const std::string& v = set.go_template_options[i];
        if (v != "missingkey=error" && v != "missingkey=default" && v != "missingkey=invalid") {
          d.Add(
              o[i], Index("spec.goTemplateOptions", i),
              "unsupported value \"" + v + "\" (supported: missingkey=error, missingkey=default)");
        }
      }
    }
    if (spec["generators"])
      set.generators = DecodeGeneratorList(d, spec["generators"], "spec.generators",
                                           {set.go_template, set.MissingKeyIsError()}, 0);
    if (!spec["template"]) {
      d.Add(spec, "spec.template", "required field is missing");
    } else {
      DecodeTemplate(d, spec["template"], "spec.template", set);
    }
    if (spec["strategy"]) set.strategy = DecodeStrategy(d, spec["strategy"], "spec.strategy");
    if (const YAML::Node sp = spec["syncPolicy"]; sp && d.Expect(sp, "spec.syncPolicy", "object")) {
      d.CheckKeys(sp, "spec.syncPolicy", {"preserveResourcesOnDeletion", "applicationsSync"});
      if (const YAML::Node as = sp["applicationsSync"]) {
        const std::string ap = "spec.syncPolicy.applicationsSync";
        if (auto v = d.String(as, ap)) {
          if (auto policy = ParseApplicationsSync(*v)) {
            set.applications_sync = *policy;
          } else {
            d.Add(as, ap,
                  "unsupported value \"" + *v +
                      "\" (supported: create-only, create-update, create-delete, sync)");
          }
        }
      }
      if (sp["preserveResourcesOnDeletion"]) {
        set.preserve_resources_on_deletion =
            d.Bool(sp["preserveResourcesOnDeletion"], "spec.syncPolicy.preserveResourcesOnDeletion")
                .value_or(false);
      }
    }
    if (const YAML::Node iad = spec["ignoreApplicationDifferences"];
        iad && d.Expect(iad, "spec.ignoreApplicationDifferences", "array")) {
      for (size_t i = 0; i < iad.size(); ++i) {
        const std::string ip = Index("spec.ignoreApplicationDifferences", i);
        if (!d.Expect(iad[i], ip, "object")) continue;
        d.CheckKeys(iad[i], ip, {"name", "jsonPointers"}, {"jqPathExpressions"});
        if (iad[i]["jsonPointers"]) {
          for (auto& p : d.StringList(iad[i]["jsonPointers"], Field(ip, "jsonPointers"))) {
            set.ignore_application_differences.push_back(p);
          }
        }
      }
    }
  }
  if (const YAML::Node st = doc["status"]; st && st.IsMap()) set.status = YamlToJson(st);
  out.issues = std::move(d.issues());
  // Report in reading order, whatever order the checks ran in.
  std::stable_sort(out.issues.begin(), out.issues.end(), [](const Issue& a, const Issue& b) {
    return std::tie(a.pos.line, a.pos.column) < std::tie(b.pos.line, b.pos.column);
  });
  out.appset = std::move(set);
  return out;
}

Issues ValidateRolloutConfig(const ApplicationSet& set) {
  Issues out;
  const Strategy& s = set.strategy;
  if (!s.IsRollingSync()) return out;
  if (s.steps.empty()) {
    out.push_back(
        {set.file, {}, "spec.strategy.rollingSync.steps", "No steps defined for rollout"});
  }
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const RolloutStep& step = s.steps[i];
    const std::string sp = Index("spec.strategy.rollingSync.steps", i);
    for (size_t j = 0; j < step.match_expressions.size(); ++j) {
      const auto& r = step.match_expressions[j];
      if (r.op != "In" && r.op != "NotIn") {
        out.push_back({set.file, r.op_pos,
                       Field(Index(Field(sp, "matchExpressions"), j), "operator"),
                       "unsupported value \"" + r.op + "\" (supported: In, NotIn)"});
      }
    }
    if (step.max_update && !IsValidMaxUpdate(*step.max_update)) {
      const std::string v = step.max_update->is_int ? std::to_string(step.max_update->int_value)
                                                    : step.max_update->string_value;
      out.push_back(
          {set.file, step.max_update_pos, Field(sp, "maxUpdate"),
           "invalid value \"" + v + "\": must be an integer >= 0 or a percentage such as \"10%\""});
    }
  }
  return out;
}

}  // namespace fleetwave::engine
