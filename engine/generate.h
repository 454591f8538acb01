// Generating Applications from an ApplicationSet: run its generators, render its template
// for every parameter set, and check that the results are usable (unique names, a destination
// that resolves to exactly one known cluster).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/appset.h"
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
};

// True when the selector selects a set of labels (an empty selector selects everything).
bool SelectorMatches(const LabelSelector& selector,
                     const std::map<std::string, std::string>& labels);

struct GenerateResult {
  std::vector<GeneratedApplication> apps;  // sorted by name
  Issues issues;
};

// Runs the generators of `appset` and renders one Application per parameter set. With
// `clusters` null the clusters are unknown: a `clusters` generator produces nothing and
// destinations are not resolved. With clusters known, a destination matching none or several
// clusters is an issue naming the app.
GenerateResult GenerateApplications(const ApplicationSet& appset,
                                    const std::vector<ClusterInfo>* clusters);

}  // namespace fleetwave::engine
