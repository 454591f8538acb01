// ApplicationSet decoding of any text: YAML load, decode, rollout-config validation. Issues
// are fine; an exception, a sanitizer report or a hang is a bug.
#include "engine/appset/appset.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  const LoadedDocuments loaded = LoadYamlDocuments(fleetwave::fuzz::Text(data, size), "f.yaml");
  for (const YAML::Node& doc : loaded.documents) {
    const DecodedApplicationSet decoded = DecodeApplicationSet(doc, "f.yaml");
    if (decoded.appset) (void)ValidateRolloutConfig(*decoded.appset);
  }
  return 0;
}
