#include "engine/generate.h"

#include <algorithm>
#include <regex>

#include "engine/template.h"

namespace fleetwave::engine {
namespace {

std::string TrimSlash(std::string s) {
  if (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

struct ParamSet {
  Json params;         // what the template sees
  std::string origin;  // which generator entry produced it, for messages
};

Json ClusterParams(const ClusterInfo& c, const ClustersGenerator& g, const TemplateOptions& opts) {
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
    TemplateResult r = RenderTemplate(v, p, opts);
    values[k] = r.ok() ? r.text : v;
  }
  p["values"] = values;
  return p;
}

std::vector<ParamSet> RunGenerators(const ApplicationSet& set,
                                    const std::vector<ClusterInfo>* clusters,
                                    const TemplateOptions& opts) {
  std::vector<ParamSet> out;
  for (size_t i = 0; i < set.generators.size(); ++i) {
    const Generator& g = set.generators[i];
    const std::string gp = "spec.generators[" + std::to_string(i) + "]";
    if (g.kind == Generator::Kind::kList) {
      for (size_t j = 0; j < g.list.elements.size(); ++j) {
        out.push_back({g.list.elements[j], gp + ".list.elements[" + std::to_string(j) + "]"});
      }
    } else if (clusters) {
      for (const ClusterInfo& c : *clusters) {
        if (SelectorMatches(g.clusters.selector, c.labels)) {
          out.push_back(
              {ClusterParams(c, g.clusters, opts), gp + ".clusters (cluster " + c.name + ")"});
        }
      }
    }
  }
  return out;
}

bool IsDnsSubdomain(const std::string& name) {
  static const std::regex re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return name.size() <= 253 && std::regex_match(name, re);
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
  if (dest.contains("server") && dest["server"].is_string()) {
    wanted = "server \"" + dest["server"].get<std::string>() + "\"";
    const std::string server = TrimSlash(dest["server"].get<std::string>());
    for (const auto& c : clusters) {
      if (TrimSlash(c.server) == server) hits.push_back(c.name);
    }
  } else if (dest.contains("name") && dest["name"].is_string()) {
    wanted = "name \"" + dest["name"].get<std::string>() + "\"";
    for (const auto& c : clusters) {
      if (c.name == dest["name"].get<std::string>()) hits.push_back(c.name);
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

GenerateResult GenerateApplications(const ApplicationSet& set,
                                    const std::vector<ClusterInfo>* clusters) {
  GenerateResult result;
  const TemplateOptions opts{set.go_template, set.MissingKeyIsError()};
  std::map<std::string, std::string> origin_of;  // app name -> generator entry
  for (const ParamSet& ps : RunGenerators(set, clusters, opts)) {
    Json rendered;
    std::string error, error_path;
    if (!RenderTemplateDocument(set.template_, ps.params, opts, rendered, error, error_path)) {
      result.issues.push_back({set.file, set.template_pos, "spec.template." + error_path,
                               error + " (parameters from " + ps.origin + ")"});
      continue;
    }
    GeneratedApplication app;
    const Json& md = rendered.value("metadata", Json::object());
    app.name = md.value("name", "");
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
    app.labels = StringMapOf(md.value("labels", Json::object()));
    Json metadata = md;
    if (!set.namespace_.empty()) metadata["namespace"] = set.namespace_;
    app.object = {{"apiVersion", "argoproj.io/v1alpha1"},
                  {"kind", "Application"},
                  {"metadata", metadata},
                  {"spec", rendered.value("spec", Json::object())}};
    if (clusters) {
      const Json dest = app.object["spec"].value("destination", Json::object());
      if (auto err = ResolveDestination(dest, *clusters, app.cluster); !err.empty()) {
        result.issues.push_back({set.file, set.template_pos, "spec.template.spec.destination",
                                 "Application \"" + app.name + "\": " + err});
        continue;
      }
    }
    result.apps.push_back(std::move(app));
  }
  std::sort(
      result.apps.begin(), result.apps.end(),
      [](const GeneratedApplication& a, const GeneratedApplication& b) { return a.name < b.name; });
  return result;
}

}  // namespace fleetwave::engine
