// The ApplicationSet model: argoproj.io/v1alpha1 ApplicationSets decoded into value types.
// Only what fleetwave acts on is typed; the Application template stays a JSON document so
// unknown template fields pass through to the generated Applications unchanged.
// Values that are well-formed YAML but semantically wrong for a rollout (an unknown
// matchExpression operator, maxUpdate "abc") are kept as written: the rollout engine reports
// them as InvalidRolloutConfig, exactly as Argo CD does, and `validate` reports them too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // "In", "NotIn" (steps); also "Exists", "DoesNotExist" (cluster selectors)
  std::vector<std::string> values;
  SourcePos op_pos;
};

struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

// An int-or-string field as written (maxUpdate).
struct IntOrString {
  bool is_int = true;
  long long int_value = 0;
  std::string string_value;
};

struct RolloutStep {
  std::vector<LabelSelectorRequirement> match_expressions;
  std::optional<IntOrString> max_update;               // absent = unlimited
  std::optional<long long> progress_deadline_seconds;  // [fleetwave] step deadline
  SourcePos pos;
  SourcePos max_update_pos;
};

struct Strategy {
  std::string type;            // as written; empty = absent (AllAtOnce)
  std::string deletion_order;  // as written; compared case-insensitively
  std::vector<RolloutStep> steps;

  bool IsRollingSync() const { return type == "RollingSync"; }
  // RollingSync is enabled only with at least one step (rollingsync.md §1).
  bool RollingSyncEnabled() const { return IsRollingSync() && !steps.empty(); }
  bool ReverseDeletion() const;  // deletionOrder equals "Reverse" ignoring case, and enabled
};

struct ListGenerator {
  std::vector<Json> elements;  // each element's keys are template parameters
};

struct ClustersGenerator {
  LabelSelector selector;
  std::map<std::string, std::string> values;  // extra parameters: values.<key>
};

struct Generator {
  enum class Kind { kList, kClusters };
  Kind kind = Kind::kList;
  ListGenerator list;
  ClustersGenerator clusters;
  SourcePos pos;
};

struct ApplicationSet {
  std::string file;  // where it was loaded from, for messages
  std::string name;
  std::string namespace_;
  std::vector<Generator> generators;
  bool go_template = false;
  std::vector<std::string> go_template_options;
  Json template_ = Json::object();  // {"metadata": {...}, "spec": {...}} as written
  SourcePos template_pos;
  Strategy strategy;
  bool preserve_resources_on_deletion = false;
  // JSON pointers ignored when comparing desired and live Application specs.
  std::vector<std::string> ignore_application_differences;
  Json status = Json::object();  // status as given (applicationStatus, conditions, rollout)

  bool MissingKeyIsError() const;  // goTemplateOptions contains "missingkey=error"
};

struct DecodedApplicationSet {
  std::optional<ApplicationSet> appset;  // set when decoding got far enough to plan with
  Issues issues;                         // every problem found, in document order
};

// True for maxUpdate values the rollout can use: an integer >= 0 or "<digits>%".
bool IsValidMaxUpdate(const IntOrString& value);

// Decodes one ApplicationSet document. Unknown fields inside `strategy` are issues; unknown
// fields in the template pass through. `file` names the source in issues.
DecodedApplicationSet DecodeApplicationSet(const YAML::Node& doc, const std::string& file);

// Rollout-configuration problems that decode fine but that the rollout would report as
// InvalidRolloutConfig or ErrorOccurred (unknown operators, invalid maxUpdate, no steps).
// `validate` reports them with their positions; `plan` leaves them to the engine's conditions.
Issues ValidateRolloutConfig(const ApplicationSet& appset);

}  // namespace fleetwave::engine
