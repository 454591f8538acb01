#include "engine/appset/git_generator.h"

#include <algorithm>

#include "engine/appset/generator_params.h"

namespace fleetwave::engine {
namespace {

// Backtracking glob matcher over (pattern, text) positions.
bool Match(const std::string& p, size_t pi, const std::string& s, size_t si) {
  while (pi < p.size()) {
    const char c = p[pi];
    if (c == '*') {
      const bool any = pi + 1 < p.size() && p[pi + 1] == '*';
      const size_t next = pi + (any ? 2 : 1);
      for (size_t k = si; k <= s.size(); ++k) {
        if (Match(p, next, s, k)) return true;
        if (k < s.size() && s[k] == '/' && !any) return false;
      }
      return false;
    }
    if (si >= s.size()) return false;
    if (c == '?') {
      if (s[si] == '/') return false;
      ++pi;
      ++si;
    } else if (c == '[') {
      const size_t close = p.find(']', pi + 1);
      if (close == std::string::npos) return false;
      bool negate = pi + 1 < close && (p[pi + 1] == '^' || p[pi + 1] == '!');
      bool hit = false;
      for (size_t k = pi + 1 + (negate ? 1 : 0); k < close; ++k) {
        if (k + 2 < close && p[k + 1] == '-') {
          hit = hit || (s[si] >= p[k] && s[si] <= p[k + 2]);
          k += 2;
        } else {
          hit = hit || s[si] == p[k];
        }
      }
      if (hit == negate || s[si] == '/') return false;
      pi = close + 1;
      ++si;
    } else {
      if (c == '\\' && pi + 1 < p.size()) ++pi;
      if (p[pi] != s[si]) return false;
      ++pi;
      ++si;
    }
  }
  return si == s.size();
}

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    out.push_back(path.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Adds the path parameters of `dir` (and `file`, for the files generator) to `params`.
void AddPathParams(const GitGenerator& git, const std::string& dir, const std::string* file,
                   bool go, Json& params) {
  const std::vector<std::string> segments = Split(dir);
  const std::string base = Basename(dir);
  if (go) {
    Json p = {{"path", dir},
              {"basename", base},
              {"basenameNormalized", SanitizeName(base)},
              {"segments", segments}};
    if (file) {
      p["filename"] = Basename(*file);
      p["filenameNormalized"] = SanitizeName(Basename(*file));
    }
    if (git.path_param_prefix.empty()) {
      params["path"] = p;
    } else {
      params[git.path_param_prefix] =
          MergeOverride(params.value(git.path_param_prefix, Json::object()), Json{{"path", p}});
    }
    return;
  }
  const std::string name = git.path_param_prefix.empty() ? "path" : git.path_param_prefix + ".path";
  params[name] = dir;
  params[name + ".basename"] = base;
  params[name + ".basenameNormalized"] = SanitizeName(base);
  if (file) {
    params[name + ".filename"] = Basename(*file);
    params[name + ".filenameNormalized"] = SanitizeName(Basename(*file));
  }
  for (size_t i = 0; i < segments.size(); ++i)
    params[name + "[" + std::to_string(i) + "]"] = segments[i];
}

// values.<key>, each rendered with the parameters built so far (as Argo CD renders them).
void AddValues(const GitGenerator& git, const TemplateOptions& opts, const InputLimits& limits,
               Json& params) {
  if (git.values.empty()) return;
  Json values = Json::object();
  for (const auto& [k, v] : git.values) {
    TemplateResult r = RenderTemplate(v, params, opts, limits);
    values[k] = r.ok() ? *r.text : v;
  }
  if (opts.go_template) {
    params["values"] = values;
  } else {
    for (auto it = values.begin(); it != values.end(); ++it)
      params["values." + it.key()] = it.value();
  }
}

std::string TooMany(const InputLimits& limits) {
  return "the repository produces more than limits.maxAppsPerApplicationSet (" +
         std::to_string(limits.max_apps_per_appset) + ") parameter sets";
}

}  // namespace

bool GitPathMatches(const std::string& pattern, const std::string& path) {
  return Match(pattern, 0, path, 0);
}

bool GitPathSelected(const std::vector<GitPathPattern>& patterns, const std::string& path) {
  bool included = false;
  for (const auto& p : patterns) {
    if (!GitPathMatches(p.path, path)) continue;
    if (p.exclude) return false;
    included = true;
  }
  return included;
}

GitParamsResult GitDirectoryParams(const GitGenerator& git, const GitRepoContent& content,
                                   const TemplateOptions& opts, const InputLimits& limits) {
  GitParamsResult out;
  std::vector<std::string> dirs = content.directories;
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const std::string& dir : dirs) {
    if (dir.empty() || dir == "." || !GitPathSelected(git.directories, dir)) continue;
    Json params = Json::object();
    AddPathParams(git, dir, nullptr, opts.go_template, params);
    AddValues(git, opts, limits, params);
    out.params.push_back(std::move(params));
    if (out.params.size() > limits.max_apps_per_appset) {
      out.params.clear();
      out.error = InvalidInputError("", TooMany(limits));
      return out;
    }
  }
  return out;
}

GitParamsResult GitFileParams(const GitGenerator& git, const GitRepoContent& content,
                              const TemplateOptions& opts, const InputLimits& limits) {
  GitParamsResult out;
  for (const auto& [file, text] : content.files) {  // std::map: path order
    if (!GitPathSelected(git.files, file)) continue;
    LoadedDocuments docs = LoadYamlDocuments(text, file, limits);
    if (!docs.issues.empty()) {
      out.error = InvalidInputError("", FormatIssue(docs.issues.front()));
      return out;
    }
    if (docs.documents.empty()) continue;  // an empty file generates nothing
    const Json doc = YamlToJson(docs.documents.front());
    std::vector<Json> objects;
    if (doc.is_array()) {
      for (const Json& e : doc) objects.push_back(e);
    } else {
      objects.push_back(doc);
    }
    if (out.params.size() + objects.size() > limits.max_apps_per_appset) {
      out.params.clear();
      out.error = InvalidInputError(file, TooMany(limits));
      return out;
    }
    for (size_t i = 0; i < objects.size(); ++i) {
      if (!objects[i].is_object()) {
        out.error = InvalidInputError(
            file, (doc.is_array() ? "element " + std::to_string(i) + " is" : "is") +
                      " not an object: a git files generator needs an object or a list of objects");
        return out;
      }
      Json params = opts.go_template ? objects[i] : FlatParamsObject(objects[i]);
      AddPathParams(git, Dirname(file), &file, opts.go_template, params);
      AddValues(git, opts, limits, params);
      out.params.push_back(std::move(params));
    }
  }
  return out;
}

}  // namespace fleetwave::engine
