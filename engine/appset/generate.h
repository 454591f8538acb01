// Generating Applications from an ApplicationSet: run its generators, render its template
// for every parameter set, and check that the results are usable (unique names, a destination
// that resolves to exactly one known cluster).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/git_generator.h"
#include "engine/error.h"
#include "engine/input_limits.h"
#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// A cluster as fleetwave knows it: a kubeconfig context plus the labels fleetwave.yaml gives it.
struct ClusterInfo {
  std::string name;    // the kubeconfig context name
  std::string server;  // the cluster's server URL
  std::map<std::string, std::string> labels;
};

struct GeneratedApplication {
  std::string name;
  std::map<std::string, std::string> labels;
  Json object;  // a complete argoproj.io/v1alpha1 Application (apiVersion, kind, metadata, spec)
  std::string cluster;  // the context its destination resolved to; empty when clusters are unknown
  // SpecFingerprint (application.h) of object["spec"], set where the app is generated; 0 =
  // none. A reconcile compares it with the live app's instead of walking both specs.
  uint64_t spec_fingerprint = 0;
};

// True when the selector selects a set of labels (an empty selector selects everything).
bool SelectorMatches(const LabelSelector& selector,
                     const std::map<std::string, std::string>& labels);

struct GenerateResult {
  std::vector<GeneratedApplication> apps;  // sorted by name
  Issues issues;
  // Of `issues`, the repositories a git generator could not read (GitRepoContent::error: a
  // fetch that failed, a revision the repository lacks), distinct, sorted by their text. A
  // repository only a git generator reads has no app whose render fails on it: these give the
  // set's ErrorOccurred condition (AppSetReconcileInput::generator_repository_errors) while the
  // caller keeps the last good generation in force.
  std::vector<Error> repository_errors;
};

// What the git generators read, gathered by the caller (the engine does no I/O): one entry
// per (repoURL, revision as written) the set's git generators name (GitRequestsOf).
struct GeneratorInputs {
  std::map<std::pair<std::string, std::string>, GitRepoContent> git;
};

// One repository snapshot the git generators of a set need read, and which of its files.
struct GitRequest {
  std::string repo_url;
  std::string revision;                       // as written; "" means HEAD
  std::vector<GitPathPattern> file_patterns;  // files whose text the generators need
};

// The git repositories `appset`'s generators name (nested ones too), one per (repoURL,
// revision), as written in the spec. A repoURL, revision or file path that is itself templated
// (a matrix child using the first child's parameters) is known only by generating: see
// GitRequestsFor. A templated repoURL or revision is not listed here.
std::vector<GitRequest> GitRequestsOf(const ApplicationSet& appset);

// True when a git generator's repoURL, revision or path is a template (`{{`): its requests
// are known only from the parameters it is rendered with (GitRequestsFor).
bool GitRequestsNeedParameters(const ApplicationSet& appset);

// The repositories the git generators ask for when generating with what `inputs` holds so far:
// a git generator in a matrix's second child is rendered with each parameter set of the first
// (as Argo CD renders it), so `repoURL: '{{url}}'` from a list asks for each list element's
// repository, and one whose first child is itself a git generator asks for nothing until that
// repository is in `inputs`. The caller reads every request not in `inputs` (or with file
// patterns it did not read) and asks again until nothing new is asked; each round resolves one
// more level of nesting. A repoURL or revision no parameter resolves is not asked for:
// generating reports it, naming the set and the field.
std::vector<GitRequest> GitRequestsFor(const ApplicationSet& appset,
                                       const std::vector<ClusterInfo>* clusters,
                                       const GeneratorInputs& inputs,
                                       const InputLimits& limits = InputLimits{});

// True when a clusters generator appears anywhere in the set (nested in matrix/merge too).
bool UsesClustersGenerator(const ApplicationSet& appset);

// Runs the generators of `appset` and renders one Application per parameter set. With
// `clusters` null the clusters are unknown: a `clusters` generator produces nothing and
// destinations are not resolved. With clusters known, a destination matching none or several
// clusters is an issue naming the app. With `inputs` null the repositories are unknown and
// git generators produce nothing; with inputs, a repository missing from them is an issue.
// `limits` bounds the work: more parameter sets than limits.max_apps_per_appset is one issue
// on the set and no apps (counted before they are built: a matrix's product before its rows);
// an Application larger than limits.max_application_bytes is an issue on it (its template
// stops rendering as soon as a string passes the budget); a field of the wrong type in a
// generated Application is an issue naming the field.
GenerateResult GenerateApplications(const ApplicationSet& appset,
                                    const std::vector<ClusterInfo>* clusters,
                                    const GeneratorInputs* inputs,
                                    const InputLimits& limits = InputLimits{});
GenerateResult GenerateApplications(const ApplicationSet& appset,
                                    const std::vector<ClusterInfo>* clusters);

}  // namespace fleetwave::engine
