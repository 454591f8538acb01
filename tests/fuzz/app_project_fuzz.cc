// AppProject decoding of any text (issue 29), and the cron matcher and window rules over every
// window that decodes: a schedule or duration the decoder lets through must never make the
// matcher throw, loop or read out of bounds. Issues are fine; an exception, a sanitizer report
// or a hang is a bug.
#include "engine/appset/app_project.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::engine;
  const LoadedDocuments loaded = LoadYamlDocuments(fleetwave::fuzz::Text(data, size), "f.yaml");
  const Time now = FromUnixSeconds(1772366400);  // 2026-03-01T12:00:00Z
  for (const YAML::Node& doc : loaded.documents) {
    const DecodedAppProject decoded = DecodeAppProject(doc, "f.yaml");
    if (!decoded.project) continue;
    for (const SyncWindow& w : decoded.project->sync_windows) {
      (void)WindowActive(w, now);
      (void)NextWindowEdge(w, now);
      (void)CanSync({w}, WindowTarget{"app", "https://s", "c", "ns"}, now, false);
    }
  }
  return 0;
}
