// Generating Applications from an ApplicationSet: run its generators, render its template
// for every parameter set, and check that the results are usable (unique names, a destination
// that resolves to exactly one known cluster).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/appset.h"
#include "engine/git_generator.h"
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
// revision). A repoURL or revision that is itself templated (a matrix child using the first
// child's parameters) is not known before generation and is not listed; generating with
// inputs then reports it as not read.
std::vector<GitRequest> GitRequestsOf(const ApplicationSet& appset);

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
