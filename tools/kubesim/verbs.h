// The Kubernetes verbs on one cluster's objects: get, list, create, update, patch (merge,
// JSON, strategic, apply), delete. Each returns the HTTP code and JSON body the API server
// would, errors as Status objects. Objects arrive and leave in the served `version`; the store
// holds the storage version. Not thread-safe: io thread only.
#pragma once

#include <optional>
#include <string>

#include "tools/kubesim/cluster.h"
#include "tools/kubesim/patch.h"
#include "tools/kubesim/resources.h"
#include "tools/kubesim/selectors.h"
#include "tools/kubesim/status.h"

namespace fleetwave::kubesim {

struct Outcome {
  int code = 200;
  Json body;
};
Outcome Fail(const ApiError& e);

struct WriteContext {
  std::string version;  // served version of the request
  std::string manager;  // fieldManager
  bool dry_run = false;
  bool status = false;  // the /status subresource
  bool strict = false;  // fieldValidation=Strict: unknown fields are a 400
};

struct ListParams {
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  long long limit = 0;
  std::string continue_token;
};

struct DeleteOptions {
  std::string propagation;  // Orphan | Background | Foreground ("" = kind default)
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_rv;
  bool dry_run = false;
};

Outcome GetObject(Cluster& c, const ResourceType& t, const std::string& version,
                  const std::string& ns, const std::string& name);
// `continue_window`: how long a continue token stays valid.
Outcome ListObjects(Cluster& c, const ResourceType& t, const std::string& version,
                    const ListParams& p, Duration continue_window);
Outcome CreateObject(Cluster& c, const ResourceType& t, const std::string& ns, Json body,
                     const WriteContext& ctx);
Outcome UpdateObject(Cluster& c, const ResourceType& t, const std::string& ns,
                     const std::string& name, Json body, const WriteContext& ctx);
Outcome PatchObject(Cluster& c, const ResourceType& t, const std::string& ns,
                    const std::string& name, const Json& patch, PatchType type, bool force,
                    const WriteContext& ctx);
// The /scale subresource: an autoscaling/v1 Scale view of spec.replicas.
Outcome GetScale(Cluster& c, const ResourceType& t, const std::string& ns, const std::string& name);
// PUT (`type` nullopt: `body` is a whole Scale) or PATCH of a Scale; writes spec.replicas.
Outcome UpdateScale(Cluster& c, const ResourceType& t, const std::string& ns,
                    const std::string& name, const Json& body, std::optional<PatchType> type,
                    const WriteContext& ctx);

Outcome DeleteObject(Cluster& c, const ResourceType& t, const std::string& ns,
                     const std::string& name, const DeleteOptions& options);

}  // namespace fleetwave::kubesim
