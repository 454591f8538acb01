// A time zone's UTC offsets as a value, so that engine/ stays pure (issue 29's sync windows):
// the binary reads a zone's TZif file from the system's tz database (/usr/share/zoneinfo, or
// $TZDIR) and ParseTzif turns its bytes into this value; the engine only looks offsets up.
// (libstdc++ 12 has no C++20 tzdb, hence our own reader.) After the file's last transition the
// last offset holds: the POSIX rule in the file's footer is not read, which Debian's tz files,
// whose transitions run to 2037, do not need. Pinned by tests/engine/windows/zone_rules_test.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwave::engine {

struct ZoneRules {
  std::string name = "UTC";
  std::vector<long long> transitions;  // UTC seconds, ascending
  std::vector<int> offsets;            // seconds east of UTC from each transition on
  int initial_offset = 0;              // before the first transition

  // The offset in force at `utc_seconds` (Unix time).
  int OffsetAt(long long utc_seconds) const;
  // The Unix time of a local wall-clock second (seconds since 1970-01-01 00:00 local). A wall
  // time skipped by a change (spring forward) maps past the gap; a repeated one (fall back)
  // maps to its first occurrence.
  long long UtcOfWall(long long wall_seconds) const;
};

// Decodes a TZif file (RFC 8536, versions 1 to 4; the 64-bit data of version 2+ is preferred).
// On failure returns nullopt and says why in `error`.
std::optional<ZoneRules> ParseTzif(std::string_view bytes, const std::string& name,
                                   std::string* error);

// Whether `name` may name a zone file: IANA names only ("Europe/Berlin", "Etc/GMT+5"), never a
// path that leaves the tz directory.
bool IsZoneName(std::string_view name);

}  // namespace fleetwave::engine
