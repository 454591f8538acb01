#include "engine/rollingsync/zone_rules.h"

#include <algorithm>
#include <cstdint>

namespace fleetwave::engine {
namespace {

struct Reader {
  std::string_view bytes;
  size_t at = 0;

  bool Has(size_t n) const { return bytes.size() - at >= n && at <= bytes.size(); }
  uint64_t Be(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    at += n;
    return v;
  }
};

struct Counts {
  uint64_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

bool ReadHeader(Reader& r, Counts& c, char& version) {
  if (!r.Has(44) || r.bytes.substr(r.at, 4) != "TZif") return false;
  version = r.bytes[r.at + 4];
  r.at += 20;
  c.isut = r.Be(4);
  c.isstd = r.Be(4);
  c.leap = r.Be(4);
  c.time = r.Be(4);
  c.type = r.Be(4);
  c.chars = r.Be(4);
  return true;
}

size_t BlockSize(const Counts& c, size_t time_size) {
  return c.time * time_size + c.time + c.type * 6 + c.chars + c.leap * (time_size + 4) + c.isstd +
         c.isut;
}

}  // namespace

int ZoneRules::OffsetAt(long long utc) const {
  auto it = std::upper_bound(transitions.begin(), transitions.end(), utc);
  if (it == transitions.begin()) return initial_offset;
  return offsets[static_cast<size_t>(it - transitions.begin()) - 1];
}

long long ZoneRules::UtcOfWall(long long wall) const {
  // The offsets a day before and a day after (zones change at most once a day): a candidate is
  // right when the offset in force at it is the one it was made with. Both right: an overlap,
  // the first occurrence wins. Neither: a gap, and the earlier offset puts it past the gap.
  const int before = OffsetAt(wall - 86400);
  const int after = OffsetAt(wall + 86400);
  const long long a = wall - before, b = wall - after;
  const bool a_ok = OffsetAt(a) == before, b_ok = OffsetAt(b) == after;
  if (a_ok && b_ok) return std::min(a, b);
  if (b_ok) return b;
  return a;
}

std::optional<ZoneRules> ParseTzif(std::string_view bytes, const std::string& name,
                                   std::string* error) {
  auto fail = [&](const char* why) -> std::optional<ZoneRules> {
    if (error) *error = why;
    return std::nullopt;
  };
  Reader r{bytes};
  Counts c;
  char version = 0;
  if (!ReadHeader(r, c, version)) return fail("not a TZif file");
  size_t time_size = 4;
  if (version >= '2') {
    const size_t v1 = BlockSize(c, 4);
    if (!r.Has(v1)) return fail("TZif file is truncated");
    r.at += v1;
    if (!ReadHeader(r, c, version)) return fail("TZif file has no version 2 header");
    time_size = 8;
  }
  if (c.type == 0 || c.type > 256 || c.time > 100000) return fail("TZif counts out of range");
  if (!r.Has(BlockSize(c, time_size))) return fail("TZif file is truncated");
  ZoneRules out;
  out.name = name;
  std::vector<long long> times(c.time);
  for (auto& t : times) {
    const uint64_t raw = r.Be(time_size);
    t = time_size == 8 ? static_cast<long long>(static_cast<int64_t>(raw))
                       : static_cast<long long>(static_cast<int32_t>(raw));
  }
  std::vector<unsigned> index(c.time);
  for (auto& i : index) i = static_cast<unsigned>(r.Be(1));
  std::vector<int> type_offsets(c.type);
  for (auto& o : type_offsets) {
    o = static_cast<int>(static_cast<int32_t>(r.Be(4)));
    r.at += 2;  // isdst, designation index: not needed for offsets
  }
  for (size_t i = 0; i < times.size(); ++i) {
    if (index[i] >= type_offsets.size()) return fail("TZif transition names no local time type");
    if (i > 0 && times[i] <= times[i - 1]) return fail("TZif transitions are not ascending");
  }
  out.transitions = std::move(times);
  out.offsets.reserve(index.size());
  for (unsigned i : index) out.offsets.push_back(type_offsets[i]);
  out.initial_offset = type_offsets[0];
  return out;
}

bool IsZoneName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '.') return false;
    for (char ch : part) {
      const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '+';
      if (!ok) return false;
    }
    start = end + 1;
  }
  return true;
}

}  // namespace fleetwave::engine
