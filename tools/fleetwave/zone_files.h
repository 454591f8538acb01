// The time zones of AppProject sync windows, read from the system's tz database ($TZDIR, else
// /usr/share/zoneinfo) and parsed by engine::ParseTzif: the file reading the engine must not do
// (issue 29). Used by `fleetwave validate` and the daemon's loader alike.
#pragma once

#include <vector>

#include "engine/appset/app_project.h"
#include "engine/issue.h"

namespace fleetwave::cli {

// Sets every window's zone; a window whose zone cannot be read is an issue naming the
// project's file and `spec.syncWindows[i].timeZone`. "" and "UTC" need no file.
engine::Issues ResolveZones(std::vector<engine::AppProject>& projects);

}  // namespace fleetwave::cli
