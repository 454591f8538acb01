// The ApplicationSet model: argoproj.io/v1alpha1 ApplicationSets decoded into value types.
// Only what fleetwave acts on is typed; the Application template stays a JSON document so
// unknown template fields pass through to the generated Applications unchanged.
// Values that are well-formed YAML but semantically wrong for a rollout (an unknown
// matchExpression operator, maxUpdate "abc") are kept as written: the rollout engine reports
// them as InvalidRolloutConfig, exactly as Argo CD does, and `validate` reports them too.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/input_limits.h"
#include "engine/issue.h"
#include "engine/rollingsync/analysis.h"
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
  // [fleetwave] failure budget (issue 29, engine/rollingsync/max_failures.h): how many of the
  // step's apps may fail while the step still completes. Absent = no budget: a failed app holds the
  // step as it always did and the rollout never reports RolloutFailed. Decoding refuses anything
  // but an integer >= 0 or "<digits>%".
  std::optional<IntOrString> max_failures;
  // [fleetwave] soak (issue 29): every counted app of the step stays Healthy this long
  // without interruption before the step completes. Decoded from a duration ("10m").
  std::optional<long long> min_success_seconds;
  // [fleetwave] Prometheus analysis (issue 29, engine/rollingsync/analysis.h): queried while the
  // step soaks (or once its apps are complete without a soak); the next step waits for it to pass.
  std::optional<AnalysisSpec> analysis;
  // [fleetwave] What a failure of this step does (issue 29): Halt stops promotion; Rollback
  // also returns every app the rollout already synced to its last healthy revisions, last step
  // first (engine/rollingsync/rollback.h).
  enum class OnFailure { kHalt, kRollback };
  OnFailure on_failure = OnFailure::kHalt;
  SourcePos pos;
  SourcePos max_update_pos;
};

struct Strategy {
  std::string type;            // as written; empty = absent (AllAtOnce)
  std::string deletion_order;  // as written; compared case-insensitively
  std::vector<RolloutStep> steps;

  bool IsRollingSync() const { return type == "RollingSync"; }
  // RollingSync is enabled only with at least one step, as in Argo CD.
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

// One include/exclude entry of a git generator: `path` is a glob ('*' and '?' stay inside one
// path segment, '**' crosses segments); an exclude entry removes what it matches whatever the
// order of the entries.
struct GitPathPattern {
  std::string path;
  bool exclude = false;
};

// git directories / git files (exactly one of the two lists is set). The engine never reads
// the repository: the caller hands in what it read at one snapshot (GeneratorInputs).
struct GitGenerator {
  std::string repo_url;
  std::string revision;  // as written; "" means HEAD
  std::vector<GitPathPattern> directories;
  std::vector<GitPathPattern> files;
  bool is_files = false;
  std::string path_param_prefix;
  std::map<std::string, std::string> values;  // extra parameters: values.<key>
};

struct Generator;

// matrix: the cartesian product of exactly two children; the second child's fields are
// rendered with each parameter set of the first before it runs.
struct MatrixGenerator {
  std::vector<Generator> generators;
};

// merge: the first child's parameter sets, each overridden by the sets of later children
// that carry the same values for every merge key; unmatched later sets are dropped.
struct MergeGenerator {
  std::vector<std::string> merge_keys;
  std::vector<Generator> generators;
};

struct Generator {
  enum class Kind { kList, kClusters, kGit, kMatrix, kMerge };
  Kind kind = Kind::kList;
  ListGenerator list;
  ClustersGenerator clusters;
  GitGenerator git;
  MatrixGenerator matrix;
  MergeGenerator merge;
  // `generators[].<gen>.template`: merged over the set's template for this generator's apps;
  // null when absent (or written as the all-empty default Argo CD's CRD prints).
  Json template_override;
  // `generators[].selector`: a post-selector over the generated (flattened) parameters.
  std::optional<LabelSelector> selector;
  std::string path;  // e.g. spec.generators[0].matrix.generators[1], for messages
  SourcePos pos;
};

// spec.syncPolicy.applicationsSync: which changes to generated Applications fleetwave makes.
enum class ApplicationsSync { kSync, kCreateOnly, kCreateUpdate, kCreateDelete };

struct AppProjects;  // app_project.h

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
  ApplicationsSync applications_sync = ApplicationsSync::kSync;  // absent = sync
  // JSON pointers ignored when comparing desired and live Application specs.
  std::vector<std::string> ignore_application_differences;
  // metadata.annotations["fleetwave.io/drift"]: "" (absent), "heal" or "report" (RollingSync
  // drift policy, rollout_plan.h RollingSyncHealsDrift).
  std::string drift_policy;
  Json status = Json::object();  // status as given (applicationStatus, conditions, rollout)
  // [issue 29] Every AppProject of the directory, shared by its sets (the loader attaches
  // them); null while none is defined: nothing is enforced, no sync window holds.
  std::shared_ptr<const AppProjects> projects;

  bool MissingKeyIsError() const;  // goTemplateOptions contains "missingkey=error"
};

constexpr const char* kDriftAnnotation = "fleetwave.io/drift";

struct DecodedApplicationSet {
  std::optional<ApplicationSet> appset;  // set when decoding got far enough to plan with
  Issues issues;                         // every problem found, in document order
};

// True for maxUpdate values the rollout can use: an integer >= 0 or "<digits>%".
bool IsValidMaxUpdate(const IntOrString& value);

// Decodes one ApplicationSet document. Unknown fields inside `strategy` are issues; unknown
// fields in the template pass through. `file` names the source in issues. Types are strict
// (Argo CD's): a value of the wrong type anywhere fleetwave or Argo CD reads it (a name, a
// revision, a destination, a sync policy) is an issue naming the field, never a default.
// Templates nesting deeper than limits.max_template_depth and lists longer than
// limits.max_apps_per_appset are issues too.
DecodedApplicationSet DecodeApplicationSet(const YAML::Node& doc, const std::string& file,
                                           const InputLimits& limits = InputLimits{});

// Rollout-configuration problems that decode fine but that the rollout would report as
// InvalidRolloutConfig or ErrorOccurred (unknown operators, invalid maxUpdate, no steps).
// `validate` reports them with their positions; `plan` leaves them to the engine's conditions.
Issues ValidateRolloutConfig(const ApplicationSet& appset);

}  // namespace fleetwave::engine
