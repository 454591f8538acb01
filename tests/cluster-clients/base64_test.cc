// base64 over OpenSSL: round trips at every padding length, whitespace and missing padding
// tolerated, everything else that is not base64 rejected.
#include "cluster-clients/base64.h"

#include <gtest/gtest.h>

namespace fleetwave::clients {
namespace {

TEST(Base64Test, EncodesWithPadding) {
  const struct {
    const char* in;
    const char* want;
  } cases[] = {{"", ""},        {"a", "YQ=="},        {"ab", "YWI="},
               {"abc", "YWJj"}, {"abcd", "YWJjZA=="}, {"admin:pw", "YWRtaW46cHc="}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(Base64Encode(c.in), c.want);
    EXPECT_EQ(Base64Decode(c.want), c.in);
  }
}

TEST(Base64Test, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    SCOPED_TRACE(n);
    const std::string in = all.substr(0, n);
    EXPECT_EQ(Base64Decode(Base64Encode(in)), in);
  }
}

TEST(Base64Test, DecodesWhatKubeconfigsHoldAndRejectsTheRest) {
  const struct {
    const char* name;
    const char* in;
    std::optional<std::string> want;
  } cases[] = {
      {"padded", "aGVsbG8=", "hello"},
      {"wrapped", "aGVs\nbG8h", "hello!"},
      {"spaces_and_crlf", " aGVs\r\n bG8h\t", "hello!"},
      {"unpadded_one", "aGVsbG8", "hello"},
      {"unpadded_two", "YQ", "a"},
      {"empty", "", ""},
      {"not_base64", "not base64!", std::nullopt},
      {"data_after_padding", "YQ==YQ==", std::nullopt},
      {"padding_in_the_middle", "YQ=a", std::nullopt},
      {"three_pads", "Y===", std::nullopt},
      {"dangling_sextet", "YWJjZ", std::nullopt},
      {"url_alphabet", "-_-_", std::nullopt},
      {"only_padding", "==", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Base64Decode(c.in), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::clients
