#include "metrics/build_info.h"

#ifndef FLEETWAVE_VERSION
#define FLEETWAVE_VERSION "unknown"
#endif
#ifndef FLEETWAVE_REVISION
#define FLEETWAVE_REVISION "unknown"
#endif

namespace fleetwave::metrics {

BuildInfo CompiledBuildInfo() { return {FLEETWAVE_VERSION, FLEETWAVE_REVISION}; }

}  // namespace fleetwave::metrics
