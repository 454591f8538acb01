// Whether an app's desired spec differs from its live one, the "spec differs" input of
// change detection (a spec change sends an app back to Waiting). Called for every synced app on
// every reconcile, so the common case (no difference) is two integers compared: the fingerprints
// computed when the apps were decoded or generated (SpecFingerprint in application.h).
#pragma once

#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/generate.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The spec of a generated Application object; an empty object when it has none.
const Json& DesiredSpecOf(const GeneratedApplication& app);

// True when the desired and live Application specs differ, ignoring the set's
// ignoreApplicationDifferences JSON pointers (relative to the Application, e.g.
// "/spec/source/targetRevision") and a controller-written syncPolicy.automated.enabled=false.
bool SpecDiffers(const Json& desired_spec, const Json& live_spec,
                 const std::vector<std::string>& ignore_pointers);

// SpecDiffers of the two apps' specs, answered by their fingerprints when they are equal;
// the full comparison runs only when they differ or one is missing.
// Pinned by spec_diff_test.cc (FingerprintShortcut*).
bool AppSpecDiffers(const GeneratedApplication& desired, const Application& live,
                    const std::vector<std::string>& ignore_pointers);

}  // namespace fleetwave::engine
