// Watch streams split at arbitrary points must decode to the same events.
#include "cluster-clients/watch_decoder.h"

#include <gtest/gtest.h>

namespace fleetwave::clients {
namespace {

const std::string kStream =
    R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})"
    "\n"
    R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}})"
    "\r\n\n"
    R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"6"}}})"
    "\n";

TEST(WatchDecoderTest, EverySplitPointGivesTheSameEvents) {
  for (std::size_t cut1 = 0; cut1 <= kStream.size(); cut1 += 7) {
    for (std::size_t cut2 = cut1; cut2 <= kStream.size(); cut2 += 13) {
      WatchDecoder d;
      std::vector<WatchEvent> got;
      for (auto part :
           {kStream.substr(0, cut1), kStream.substr(cut1, cut2 - cut1), kStream.substr(cut2)}) {
        for (auto& e : d.Feed(part)) got.push_back(std::move(e));
      }
      ASSERT_EQ(got.size(), 3u) << cut1 << "," << cut2;
      EXPECT_EQ(got[0].type, "ADDED");
      EXPECT_EQ(got[1].type, "BOOKMARK");
      EXPECT_EQ(got[2].type, "DELETED");
      EXPECT_EQ(got[2].object["metadata"]["resourceVersion"], "6");
      EXPECT_EQ(d.pending(), 0u);
    }
  }
}

TEST(WatchDecoderTest, ByteAtATime) {
  WatchDecoder d;
  int n = 0;
  for (char c : kStream) n += static_cast<int>(d.Feed(std::string_view(&c, 1)).size());
  EXPECT_EQ(n, 3);
}

TEST(WatchDecoderTest, IncompleteTailWaits) {
  WatchDecoder d;
  EXPECT_TRUE(d.Feed(R"({"type":"ADDED","object":{})").empty());
  EXPECT_GT(d.pending(), 0u);
  EXPECT_EQ(d.Feed("}\n").size(), 1u);
}

TEST(WatchDecoderTest, ALargeEventsBufferIsReleasedOnceItsLineEnds) {
  WatchDecoder d;
  const std::string big =
      R"({"type":"ADDED","object":{"data":")" + std::string(100000, 'x') + "\"}}\n";
  EXPECT_TRUE(d.Feed(std::string_view(big).substr(0, 60000)).empty());
  EXPECT_GE(d.retained_bytes(), 60000u);
  auto ev = d.Feed(big.substr(60000) + kStream);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].object["data"].get<std::string>().size(), 100000u);
  EXPECT_EQ(ev[3].type, "DELETED");
  EXPECT_EQ(d.pending(), 0u);
  EXPECT_LE(d.retained_bytes(), 1024u);
}

TEST(WatchDecoderTest, GarbageBecomesAnErrorEvent) {
  WatchDecoder d;
  auto ev = d.Feed("<html>proxy error</html>\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, "ERROR");
  EXPECT_EQ(ev[0].object["reason"], "InvalidWatchEvent");
}

}  // namespace
}  // namespace fleetwave::clients
