// The one validation chain for fleetwave's input documents, shared by `fleetwave validate`
// and the daemon so both accept and reject exactly the same input. A mapping with neither
// `kind` nor `apiVersion` is a fleetwave.yaml: it is decoded and its cluster labels joined with
// the clusters the kubeconfigs define. An AppProject is decoded (app_project.h). Every other
// document is an ApplicationSet: decoded, its rollout config checked, and its Applications
// generated.
//
// Pure: the caller reads the files, loads the kubeconfigs the config names (with the
// cluster-clients loader, kubectl's merge rules) and hands the clusters over as plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/appset/app_project.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/config.h"
#include "engine/input_limits.h"
#include "engine/issue.h"

namespace fleetwave::engine {

// Whether a document is a fleetwave.yaml rather than a Kubernetes object.
bool IsFleetConfig(const YAML::Node& doc);

// The index of the first fleetwave.yaml document, if any: the caller loads the kubeconfigs
// its `kubeconfig` list names before calling ValidateDocuments.
std::optional<std::size_t> FindFleetConfig(const std::vector<YAML::Node>& docs);

struct ValidationInputs {
  // The clusters the config's kubeconfig list defines (name and server, no labels) and the
  // problems found loading them. Read only when a document is a fleetwave.yaml.
  KubeconfigClusters kubeconfig;
  // The clusters destinations are resolved against; nullptr = a dry generation that prints
  // destinations as written and a clusters generator that yields nothing.
  const std::vector<ClusterInfo>* generate_against = nullptr;
  // What generating a set may cost (fleetwave.yaml's `limits:` in the daemon; the defaults in
  // `fleetwave validate`).
  InputLimits limits;
};

struct ValidatedDocuments {
  std::optional<Config> config;         // the fleetwave.yaml document, when there is one
  std::vector<ClusterInfo> clusters;    // the kubeconfig clusters with the config's labels
  std::vector<ApplicationSet> appsets;  // every ApplicationSet that decoded without issues
  // Every AppProject that decoded without issues (issue 29); time zones not resolved yet.
  std::vector<AppProject> projects;
  Issues issues;  // every problem of every document, in order
};

// Runs the chain over the documents of one file (`file` names it in issues).
ValidatedDocuments ValidateDocuments(const std::vector<YAML::Node>& docs, const std::string& file,
                                     const ValidationInputs& inputs);

}  // namespace fleetwave::engine
