// The inputs of `fleetwave plan` decoded from their text: an ApplicationSet
// (optionally with its stored status) and the live Applications, in the forms `kubectl get
// ... -o yaml|json` prints (a `kind: List`, a bare list, a single object, multi-document
// YAML). Pure: the caller reads the files; this is the whole path from text to PlanResult, so
// the CLI and the conformance tests run the same code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/issue.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/time.h"

namespace fleetwave::engine {

struct PlanInputs {
  std::optional<ApplicationSet> appset;  // set only when there were no issues
  std::vector<GeneratedApplication> desired;
  std::vector<Application> live;
  Issues issues;  // every problem, each naming its file
};

// Decodes both inputs. The desired apps are what the set's generators produce; a set without
// generators, or one whose generators need the cluster list (`clusters`, not known offline),
// takes the live Applications as desired.
PlanInputs DecodePlanInputs(const std::string& appset_text, const std::string& appset_file,
                            const std::string& apps_text, const std::string& apps_file);

struct PlanRun {
  Issues issues;  // non-empty: nothing was planned
  std::optional<PlanResult> result;
};

// DecodePlanInputs + Plan. Problems in the stored status are issues of the appset file.
PlanRun RunPlanOnText(const std::string& appset_text, const std::string& appset_file,
                      const std::string& apps_text, const std::string& apps_file, Time now);

}  // namespace fleetwave::engine
