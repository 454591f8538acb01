// url.h's escaping and query building as tables, and the watch decoder's event bound at chunk
// boundaries (issue 30).
#include <gtest/gtest.h>

#include <string>

#include "cluster-clients/url.h"
#include "cluster-clients/watch_decoder.h"

namespace fleetwave::clients {
namespace {

TEST(UrlTest, EscapeSegment) {
  const std::pair<std::string, std::string> cases[] = {
      {"web-1.v2_x~y", "web-1.v2_x~y"},  // unreserved stays as it is
      {"a/b", "a%2Fb"},
      {"x?dryRun=All#", "x%3FdryRun%3DAll%23"},
      {"100%", "100%25"},
      {"system:reader", "system%3Areader"},
      {"a b+c&d", "a%20b%2Bc%26d"},
      {".", "%2E"},
      {"..", "%2E%2E"},
      {"...", "..."},
      {"../x", "..%2Fx"},
      {std::string("\x00\xff", 2), "%00%FF"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(EscapeSegment(in), want) << in;
}

TEST(UrlTest, SegmentProblem) {
  EXPECT_EQ(SegmentProblem("web"), "");
  EXPECT_EQ(SegmentProblem("a/b"), "");  // harmless once escaped
  EXPECT_EQ(SegmentProblem(""), "is empty");
  EXPECT_EQ(SegmentProblem("."), "may not be '.'");
  EXPECT_EQ(SegmentProblem(".."), "may not be '..'");
}

TEST(UrlTest, QueryFromTypedParameters) {
  EXPECT_EQ(Query().str(), "");
  Query q;
  q.Add("watch", "1").Add("timeoutSeconds", 300).AddIfSet("resourceVersion", "");
  q.AddIfSet("labelSelector", "app in (a,b)&x=#");
  EXPECT_EQ(q.str(), "?watch=1&timeoutSeconds=300&labelSelector=app%20in%20%28a%2Cb%29%26x%3D%23");
}

TEST(WatchDecoderBound, ALongLineOverflowsWhereverTheChunksSplit) {
  const std::string ok = R"({"type":"ADDED","object":{}})";  // 28 bytes
  for (std::size_t chunk = 1; chunk <= 40; ++chunk) {
    SCOPED_TRACE(chunk);
    WatchDecoder d(32);
    const std::string stream = ok + "\n" + std::string(33, 'x') + "\n" + ok + "\n";
    std::size_t events = 0;
    for (std::size_t i = 0; i < stream.size(); i += chunk) {
      events += d.Feed(std::string_view(stream).substr(i, chunk)).size();
      EXPECT_LE(d.pending(), 32u);
    }
    EXPECT_TRUE(d.overflowed());
    EXPECT_EQ(events, 1u);  // the event before the long line; nothing after it
    EXPECT_EQ(d.pending(), 0u);
  }
}

TEST(WatchDecoderBound, LinesAtTheBoundAreDecoded) {
  const std::string ok = R"({"type":"ADDED","object":{}})";
  WatchDecoder d(ok.size());
  EXPECT_EQ(d.Feed(ok + "\n" + ok + "\n" + ok).size(), 2u);
  EXPECT_EQ(d.Feed("\n").size(), 1u);
  EXPECT_FALSE(d.overflowed());
  EXPECT_EQ(d.max_event_bytes(), ok.size());
  EXPECT_EQ(WatchDecoder().max_event_bytes(), 16u << 20);
}

}  // namespace
}  // namespace fleetwave::clients
