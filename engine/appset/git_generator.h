// The git generators (directories, files) as pure functions over what the caller read from
// one repository snapshot; the engine never touches the repository itself.
//
// Parameters (fasttemplate keys / goTemplate fields; `P` is `<pathParamPrefix>.` or nothing):
//   directories: P path, P path.basename, P path.basenameNormalized, P path[n]
//                / .P path.path, .P path.basename, .P path.basenameNormalized, .P path.segments
//   files:       the file's keys (fasttemplate: flattened with dots, lists as .0, .1, ...),
//                plus the directory ones and P path.filename, P path.filenameNormalized;
//                a file holding a list of objects gives one parameter set per element.
//   both:        values.<key>, rendered with the set's other parameters.
// Pinned by tests/engine/generators/git_generator_test.cc.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/template.h"
#include "engine/error.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// What the caller read from one (repoURL, revision) snapshot for the git generators.
struct GitRepoContent {
  std::vector<std::string> directories;      // every directory in the tree, relative, '/'-separated
  std::map<std::string, std::string> files;  // path -> text, at least every file GitWantsFile
  std::optional<Error> error;                // set: the repository could not be read
};

// Glob match of a repository path: '*' and '?' never cross '/', '**' matches any number of
// characters including '/', [abc] and [a-z] classes as in path.Match.
bool GitPathMatches(const std::string& pattern, const std::string& path);

// True when `path` is selected by the include/exclude patterns (an exclude always wins).
bool GitPathSelected(const std::vector<GitPathPattern>& patterns, const std::string& path);

struct GitParamsResult {
  std::vector<Json> params;    // in path order
  std::optional<Error> error;  // the first problem (e.g. a file that does not parse)
};

// A repository is as hostile as a file: its files go through the bounded decoder
// (LoadYamlDocuments), values render within `limits`, and more parameter sets than
// limits.max_apps_per_appset is an error before more are built.
GitParamsResult GitDirectoryParams(const GitGenerator& git, const GitRepoContent& content,
                                   const TemplateOptions& opts,
                                   const InputLimits& limits = InputLimits{});
GitParamsResult GitFileParams(const GitGenerator& git, const GitRepoContent& content,
                              const TemplateOptions& opts,
                              const InputLimits& limits = InputLimits{});

}  // namespace fleetwave::engine
