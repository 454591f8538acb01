// A TZif file's bytes into offsets (engine/rollingsync/zone_rules.h): versions 1 and 2, refusals,
// and the zone names a window may give.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "engine/rollingsync/zone_rules.h"

namespace fleetwave::engine {
namespace {

void Be(std::string& out, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A TZif block: transitions `times` to types `index` with offsets `offsets`.
std::string Block(const std::vector<long long>& times, const std::vector<int>& index,
                  const std::vector<int>& offsets, int time_size, char version) {
  std::string out = "TZif";
  out.push_back(version);
  out.append(15, '\0');
  for (uint64_t c : {uint64_t{0}, uint64_t{0}, uint64_t{0}, uint64_t(times.size()),
                     uint64_t(offsets.size()), uint64_t{4}}) {
    Be(out, c, 4);
  }
  for (long long t : times) Be(out, static_cast<uint64_t>(t), time_size);
  for (int i : index) out.push_back(static_cast<char>(i));
  for (int o : offsets) {
    Be(out, static_cast<uint32_t>(o), 4);
    out.push_back(0);
    out.push_back(0);
  }
  out.append("CET", 4);
  return out;
}

TEST(ZoneRulesTest, ReadsVersionOneAndTwo) {
  const std::vector<long long> times = {1774746000, 1792890000};
  const std::vector<int> index = {1, 0};
  const std::vector<int> offsets = {3600, 7200};
  for (char version : {'\0', '2'}) {
    std::string bytes = Block(times, index, offsets, 4, version);
    if (version == '2') bytes += Block(times, index, offsets, 8, '2') + "\nCET-1CEST\n";
    std::string why;
    auto z = ParseTzif(bytes, "Europe/Berlin", &why);
    ASSERT_TRUE(z) << why;
    EXPECT_EQ(z->OffsetAt(1774745999), 3600);
    EXPECT_EQ(z->OffsetAt(1774746000), 7200);
    EXPECT_EQ(z->OffsetAt(1792890000), 3600);
    EXPECT_EQ(z->OffsetAt(0), 3600);  // before the first transition: type 0
    // 2026-03-29 02:30 local does not exist; 2026-10-25 02:30 local happens twice.
    EXPECT_EQ(z->UtcOfWall(1774746000 + 3600 + 1800), 1774746000 + 1800);
    EXPECT_EQ(z->UtcOfWall(1792890000 + 3600 + 1800), 1792890000 - 1800);
  }
}

TEST(ZoneRulesTest, RefusesWhatIsNotTzif) {
  std::string why;
  EXPECT_FALSE(ParseTzif("hello", "X", &why));
  EXPECT_EQ(why, "not a TZif file");
  std::string cut = Block({1, 2}, {0, 0}, {0}, 4, '\0');
  cut.resize(cut.size() - 6);
  EXPECT_FALSE(ParseTzif(cut, "X", &why));
  EXPECT_EQ(why, "TZif file is truncated");
  EXPECT_FALSE(ParseTzif(Block({1, 2}, {0, 3}, {0}, 4, '\0'), "X", &why));
  EXPECT_EQ(why, "TZif transition names no local time type");
}

TEST(ZoneRulesTest, ZoneNamesNeverLeaveTheDatabase) {
  for (const char* ok : {"UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5"}) {
    EXPECT_TRUE(IsZoneName(ok)) << ok;
  }
  for (const char* bad : {"", "/etc/passwd", "../../etc/passwd", "Europe/../x", "Europe/",
                          "Europe//Berlin", ".hidden", "Europe/Berlin "}) {
    EXPECT_FALSE(IsZoneName(bad)) << bad;
  }
}

}  // namespace
}  // namespace fleetwave::engine
