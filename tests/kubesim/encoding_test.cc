// kubesim's text encodings: base64 (OpenSSL's) as continue tokens and kubeconfig data fields
// use it, and query-string decoding.
#include "tools/kubesim/encoding.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

TEST(EncodingTest, Base64RoundTripsEveryLength) {
  std::string data;
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(Base64Decode(Base64Encode(data)), data);
    data += static_cast<char>(i * 37);
  }
}

TEST(EncodingTest, Base64KnownValues) {
  struct Case {
    const char* name;
    std::string text;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      {"padded", "aGVsbG8=", "hello"},
      {"unpadded", "aGVsbG8", "hello"},
      {"empty", "", ""},
      {"url-safe alphabet", "-_-_", std::string("\xfb\xff\xbf", 3)},
      {"standard alphabet", "+/+/", std::string("\xfb\xff\xbf", 3)},
      {"invalid character", "aGV*bG8=", std::nullopt},
      {"inner whitespace", "aGVs bG8=", std::nullopt},
      {"a lone sextet", "aGVsb", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Base64Decode(c.text), c.want);
  }
  EXPECT_EQ(Base64Encode("hello"), "aGVsbG8=");
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode(std::string("\0\0", 2)), "AAA=");
}

TEST(EncodingTest, UrlDecode) { EXPECT_EQ(UrlDecode("a%3Db+c%2"), "a=b c%2"); }

}  // namespace
}  // namespace fleetwave::kubesim
