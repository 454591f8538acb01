// The workload reader on any JSON: the fields the progress-deadline logic reads from a
// Deployment, StatefulSet, DaemonSet or CloneSet of any shape. Reading never fails on odd
// types (a field that cannot be read is absent); an exception or a sanitizer report is a bug.
#include "engine/progress/workload.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  const Json object = Json::parse(fleetwave::fuzz::Text(data, size), nullptr, false);
  if (object.is_discarded()) return 0;
  (void)WorkloadKindOf(object);
  const WorkloadRead read = ReadWorkload(object);
  if (read.workload) {
    (void)read.workload->StatusIsCurrent();
    (void)read.workload->Revision();
  }
  if (const Json* conditions = FieldAt(object, {"status", "conditions"});
      conditions && conditions->is_array())
    for (const Json& c : *conditions)
      if (auto pc = ConditionFromJson(c)) (void)ConditionToJson(*pc);
  (void)IntAt(object, {"spec", "replicas"});
  (void)StringAt(object, {"metadata", "name"});
  return 0;
}
