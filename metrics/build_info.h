// What fleetwave_build_info{version,revision} reports: the project version and the git commit
// the build was configured at ("unknown" outside a checkout). Fixed at build time.
#pragma once

#include <string>

namespace fleetwave::metrics {

struct BuildInfo {
  std::string version;
  std::string revision;
};

// The values compiled into this binary (metrics/CMakeLists.txt).
BuildInfo CompiledBuildInfo();

}  // namespace fleetwave::metrics
