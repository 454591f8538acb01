// fleetwave.yaml decoding of any text. Issues are fine; an exception, a sanitizer report or a
// hang is a bug.
#include "engine/config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  const LoadedDocuments loaded = LoadYamlDocuments(fleetwave::fuzz::Text(data, size), "f.yaml");
  for (const YAML::Node& doc : loaded.documents) (void)DecodeConfig(doc, "f.yaml");
  return 0;
}
