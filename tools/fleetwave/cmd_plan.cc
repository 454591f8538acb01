// `fleetwave plan`: the offline RollingSync planner. Reading the files and
// the wall clock happens here; everything else is engine::RunPlanOnText, which the
// conformance tests call too.
#include <chrono>
#include <ostream>

#include "engine/appset/plan_input.h"
#include "engine/time.h"
#include "engine/yaml_json.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/input.h"

namespace fleetwave::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetwave plan --appset FILE --apps FILE [--now RFC3339] [-o json|yaml]\n";

int Usage(std::ostream& err, const std::string& problem) {
  err << "fleetwave plan: " << problem << "\n" << kUsage;
  return 2;
}

}  // namespace

int RunPlan(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"--appset", "--apps", "--now", "-o", "--output"}, {}, &error);
  if (!args) return Usage(err, error);
  if (!args->positional.empty()) return Usage(err, "unexpected argument " + args->positional[0]);
  const auto appset_file = args->Get("--appset");
  const auto apps_file = args->Get("--apps");
  if (!appset_file) return Usage(err, "--appset is required");
  if (!apps_file) return Usage(err, "--apps is required");
  if (*appset_file == "-" && *apps_file == "-") {
    return Usage(err, "--appset and --apps cannot both be standard input");
  }
  const std::string format = args->Get("-o").value_or(args->Get("--output").value_or("json"));
  if (format != "json" && format != "yaml") {
    return Usage(err, "unsupported output format \"" + format + "\" (supported: json, yaml)");
  }
  engine::Time now;
  if (auto text = args->Get("--now")) {
    auto parsed = engine::ParseRfc3339(*text);
    if (!parsed) return Usage(err, "--now: not an RFC 3339 time: " + *text);
    now = *parsed;
  } else {
    // The only clock read of `plan`: the engine takes `now` as a value.
    now = std::chrono::time_point_cast<engine::Duration>(std::chrono::system_clock::now());
  }

  // The texts are parsed by the engine (RunPlanOnText, which the conformance vectors drive)
  // with the same LoadYamlDocuments as every other user file.
  const std::optional<std::string> appset_text = ReadInput(*appset_file, &error);
  const std::optional<std::string> apps_text =
      appset_text ? ReadInput(*apps_file, &error) : std::nullopt;
  if (!appset_text || !apps_text) {
    err << "fleetwave plan: " << error << "\n";
    return 1;
  }
  engine::PlanRun run =
      engine::RunPlanOnText(*appset_text, *appset_file, *apps_text, *apps_file, now);
  if (!run.result) {
    for (const auto& issue : run.issues) err << engine::FormatIssue(issue) << "\n";
    return 1;
  }
  const engine::Json doc = engine::PlanOutputJson(*run.result);
  if (format == "yaml") {
    out << engine::JsonToYaml(doc);
  } else {
    out << doc.dump(2) << "\n";
  }
  return 0;
}

}  // namespace fleetwave::cli
