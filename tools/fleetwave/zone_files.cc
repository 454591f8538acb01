#include "tools/fleetwave/zone_files.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

namespace fleetwave::cli {
namespace {

constexpr std::streamsize kMaxZoneFileBytes = 1 << 20;

std::string ZoneDirectory() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && dir[0] == '/' ? dir : "/usr/share/zoneinfo";
}

std::shared_ptr<const engine::ZoneRules> LoadZone(const std::string& name, std::string* why) {
  // IsZoneName was checked by the decoder: the name cannot leave the directory.
  const std::string path = ZoneDirectory() + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = "unknown time zone \"" + name + "\" (no " + path + ")";
    return nullptr;
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(kMaxZoneFileBytes) + 1);
  in.read(bytes.data(), kMaxZoneFileBytes + 1);
  bytes.resize(static_cast<size_t>(in.gcount()));
  std::string parse_error;
  auto rules = engine::ParseTzif(bytes, name, &parse_error);
  if (!rules) {
    *why = "time zone \"" + name + "\": " + path + ": " + parse_error;
    return nullptr;
  }
  return std::make_shared<const engine::ZoneRules>(std::move(*rules));
}

}  // namespace

engine::Issues ResolveZones(std::vector<engine::AppProject>& projects) {
  engine::Issues issues;
  std::map<std::string, std::shared_ptr<const engine::ZoneRules>> loaded;
  for (engine::AppProject& p : projects) {
    for (engine::SyncWindow& w : p.sync_windows) {
      if (w.time_zone.empty() || w.time_zone == "UTC" || w.time_zone == "Etc/UTC") continue;
      auto it = loaded.find(w.time_zone);
      if (it == loaded.end()) {
        std::string why;
        auto zone = LoadZone(w.time_zone, &why);
        if (!zone) {
          issues.push_back({p.file,
                            {},
                            "spec.syncWindows[" + std::to_string(w.index) + "].timeZone",
                            "AppProject " + p.name + ": " + why});
          continue;
        }
        it = loaded.emplace(w.time_zone, std::move(zone)).first;
      }
      w.zone = it->second;
    }
  }
  return issues;
}

}  // namespace fleetwave::cli
