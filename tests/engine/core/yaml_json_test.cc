// The YAML/JSON bridge: scalar typing on the way in, quoting on the way out.
#include "engine/yaml_json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetwave::engine {
namespace {

TEST(YamlToJson, PlainScalarsFollowTheCoreSchemaAndQuotedOnesStayStrings) {
  auto docs = LoadYamlDocuments(
      "a: 1\nb: '1'\nc: true\nd: null\ne: 1.5\nf: 10%\ng: \"true\"\nh: ~\ni: 0x10\nj: [x, 2]\n",
      "t.yaml");
  ASSERT_EQ(docs.documents.size(), 1u);
  const Json j = YamlToJson(docs.documents[0]);
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["b"], "1");
  EXPECT_EQ(j["c"], true);
  EXPECT_TRUE(j["d"].is_null());
  EXPECT_DOUBLE_EQ(j["e"].get<double>(), 1.5);
  EXPECT_EQ(j["f"], "10%");
  EXPECT_EQ(j["g"], "true");
  EXPECT_TRUE(j["h"].is_null());
  EXPECT_EQ(j["i"], 16);
  EXPECT_EQ(j["j"], Json::parse(R"(["x", 2])"));
}

TEST(YamlToJson, NumbersNeedTheirWholeText) {
  auto docs =
      LoadYamlDocuments("[1e3, .5, -2, +7, 1.2.3, 1e, 12a, 0x1G, 0o8, '-', 5., -.inf]\n", "n.yaml");
  const Json j = YamlToJson(docs.documents.at(0));
  EXPECT_EQ(j[0], 1000.0);
  EXPECT_EQ(j[1], 0.5);
  EXPECT_EQ(j[2], -2);
  EXPECT_EQ(j[3], 7);
  for (int k : {4, 5, 6, 7, 8, 9}) EXPECT_TRUE(j[k].is_string()) << j[k];
  EXPECT_EQ(j[10], 5.0);
  EXPECT_TRUE(std::isinf(j[11].get<double>()));
}

TEST(JsonToYaml, RoundTripsTypesAndQuotesAmbiguousStrings) {
  const Json in = Json::parse(R"({"s": "true", "n": "3", "p": "10%", "y": "yes", "b": false, "i": 7,
                                  "empty": [], "obj": {}, "list": ["a", {"k": "v"}]})");
  const std::string text = JsonToYaml(in);
  EXPECT_NE(text.find("empty: []"), std::string::npos) << text;
  EXPECT_NE(text.find("obj: {}"), std::string::npos) << text;
  EXPECT_NE(text.find("s: \"true\""), std::string::npos) << text;
  EXPECT_NE(text.find("y: \"yes\""), std::string::npos)
      << "YAML 1.1 readers would take yes as a bool";
  auto docs = LoadYamlDocuments(text, "out.yaml");
  ASSERT_EQ(docs.documents.size(), 1u);
  EXPECT_EQ(YamlToJson(docs.documents[0]), in);
}

// Found by yaml_json_fuzz: `.inf` read as a float was written back as the string "null".
TEST(JsonToYaml, InfinitiesRoundTrip) {
  const struct {
    const char* name;
    const char* yaml;
  } cases[] = {{"plus", "a: .inf\n"}, {"minus", "a: -.Inf\n"}, {"in_a_list", "- [+.inf, 1.5]\n"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = LoadYamlDocuments(c.yaml, "in.yaml");
    ASSERT_EQ(docs.documents.size(), 1u);
    const Json in = YamlToJson(docs.documents[0]);
    auto again = LoadYamlDocuments(JsonToYaml(in), "out.yaml");
    ASSERT_EQ(again.documents.size(), 1u);
    EXPECT_EQ(YamlToJson(again.documents[0]), in) << JsonToYaml(in);
  }
}

// yaml-cpp's emitter wrote strings with control characters plain, and they read back
// changed; JsonToYaml double-quotes them (found by yaml_json_fuzz: a carriage return in a flow
// sequence).
TEST(JsonToYaml, ControlCharactersRoundTrip) {
  const struct {
    const char* name;
    std::string yaml;
    Json json;
  } cases[] = {
      {"fuzz finding: carriage return in a flow sequence", "a:\nb: [-In\r, 1.]\n",
       Json{{"a", nullptr}, {"b", Json::array({"-In\r", 1.0})}}},
      {"carriage return inside", "[a\rb]\n", Json::array({"a\rb"})},
      {"tab at the end", "['a\t']\n", Json::array({"a\t"})},
      {"line feed", "\"a\\nb\"\n", Json("a\nb")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = LoadYamlDocuments(c.yaml, "in.yaml");
    ASSERT_EQ(docs.documents.size(), 1u);
    const Json in = YamlToJson(docs.documents[0]);
    EXPECT_EQ(in, c.json);
    auto again = LoadYamlDocuments(JsonToYaml(in), "out.yaml");
    ASSERT_EQ(again.documents.size(), 1u);
    EXPECT_EQ(YamlToJson(again.documents[0]), in) << JsonToYaml(in);
  }
}

// Found by the fuzz targets: nested aliases ("billion laughs") made every reader expand 10^9
// nodes and exhaust memory. Such a document is an issue; a normal use of aliases still loads.
TEST(LoadYamlDocuments, AliasBombs) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const std::string text = bomb + "---\nb: 1\n";
  auto docs = LoadYamlDocuments(text, "bomb.yaml");
  ASSERT_EQ(docs.issues.size(), 1u);
  // The allowance is the text's own size (every node and scalar byte is written out) plus
  // 1,000,000 nodes and bytes that aliases may add.
  EXPECT_EQ(FormatIssue(docs.issues[0]),
            "bomb.yaml:1:1: the document expands to more than " +
                std::to_string(text.size() + 1000000) +
                " nodes and bytes through aliases; refusing to read it");
  ASSERT_EQ(docs.documents.size(), 1u);  // the next document still loads
  EXPECT_EQ(YamlToJson(docs.documents[0]), Json({{"b", 1}}));

  // Few nodes, but one long scalar used 2,000 times: weighed by its bytes.
  std::string long_scalar = "s: &s " + std::string(1000, 'x') + "\nl:\n";
  for (int i = 0; i < 2000; ++i) long_scalar += "- *s\n";
  auto heavy = LoadYamlDocuments(long_scalar, "heavy.yaml");
  ASSERT_EQ(heavy.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(heavy.issues[0]),
            "heavy.yaml:1:1: the document expands to more than " +
                std::to_string(long_scalar.size() + 1000000) +
                " nodes and bytes through aliases; refusing to read it");
  EXPECT_TRUE(heavy.documents.empty());

  auto fine = LoadYamlDocuments("base: &b {x: 1}\nuse: *b\n", "ok.yaml");
  EXPECT_TRUE(fine.issues.empty());
  ASSERT_EQ(fine.documents.size(), 1u);
  EXPECT_EQ(YamlToJson(fine.documents[0])["use"], Json({{"x", 1}}));
}

// A large document without aliases is never refused, however many nodes it has.
TEST(LoadYamlDocuments, LargeDocumentsWithoutAliasesLoad) {
  std::string big = "items:\n";
  for (int i = 0; i < 120000; ++i) big += "- " + std::to_string(i % 10) + "\n";
  auto docs = LoadYamlDocuments(big, "big.yaml");
  EXPECT_TRUE(docs.issues.empty());
  ASSERT_EQ(docs.documents.size(), 1u);
  EXPECT_EQ(docs.documents[0]["items"].size(), 120000u);
}

// YAML is UTF-8. Other bytes are an issue at their position, not text carried through into
// YAML that could not be read back.
TEST(LoadYamlDocuments, NotUtf8IsAnIssue) {
  struct Case {
    const char* name;
    std::string text;
    const char* issue;  // nullptr: loads
  } cases[] = {
      {"ascii", "a: b\n", nullptr},
      {"two-, three- and four-byte sequences", "a: \xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80\n",
       nullptr},
      {"lone continuation byte", "a: b\nc: \x80\n",
       "f.yaml:2:4: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"fuzz finding: invalid lead bytes after .inf", "a: .inff.\nf\xc4\xc4\xc4\n",
       "f.yaml:2:2: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"fuzz finding: NUL bytes", std::string("\0\0\0An\nfb:\0[-.Inf", 16),
       "f.yaml:1:1: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"tab and carriage return are text", "a:\tb\r\n", nullptr},
      {"overlong", "a: \xc0\xaf\n",
       "f.yaml:1:4: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"surrogate", "a: \xed\xa0\x80\n",
       "f.yaml:1:4: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"above U+10FFFF", "a: \xf4\x90\x80\x80\n",
       "f.yaml:1:4: the text is not valid UTF-8 or holds a control character YAML does not allow"},
      {"truncated at the end", "a: \xe2\x82",
       "f.yaml:1:4: the text is not valid UTF-8 or holds a control character YAML does not allow"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const LoadedDocuments docs = LoadYamlDocuments(c.text, "f.yaml");
    if (c.issue == nullptr) {
      EXPECT_TRUE(docs.issues.empty());
      EXPECT_EQ(docs.documents.size(), 1u);
    } else {
      ASSERT_EQ(docs.issues.size(), 1u);
      EXPECT_EQ(FormatIssue(docs.issues[0]), c.issue);
      EXPECT_TRUE(docs.documents.empty());
    }
  }
}

TEST(LoadYamlDocuments, NestingIsBounded) {
  const std::string tail = " levels), or an alias refers to its own anchor; refusing to read it";
  // An alias inside its own anchor makes a cycle (found by config_fuzz).
  auto cycle = LoadYamlDocuments("a: 1\nb: &b [x, *b]\n", "cycle.yaml");
  ASSERT_EQ(cycle.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(cycle.issues[0]),
            "cycle.yaml:1:1: the document nests deeper than limits.maxDocumentDepth (200" + tail);
  EXPECT_TRUE(cycle.documents.empty());

  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']') + "\n"; };
  // Written-out nesting this deep is refused by the depth pre-scan, before yaml-cpp reads it.
  auto deep = LoadYamlDocuments(nested(600), "deep.yaml");
  ASSERT_EQ(deep.issues.size(), 1u);
  EXPECT_TRUE(deep.documents.empty());
  auto fine = LoadYamlDocuments(nested(100), "fine.yaml");
  EXPECT_TRUE(fine.issues.empty());
  EXPECT_EQ(fine.documents.size(), 1u);
}

// yaml-cpp 0.7 appends empty documents without end when a node is followed by a token that
// starts none (found by the fuzz targets): the read step refuses the text at that token and
// loads nothing from it. The classes of such texts are in yaml_prescan_test.cc.
TEST(LoadYamlDocuments, RunawayTextIsAnIssue) {
  struct Case {
    const char* name;
    std::string text;
    const char* issue;
  } cases[] = {
      {"fuzz finding: leading comma", ",afnI.:1 +.inf, ",
       "f.yaml:1:1: unexpected ',': no YAML node can start here"},
      {"fuzz finding: a tag, then a comma", "!,opchecke[",
       "f.yaml:1:2: unexpected ',': no YAML node can start here"},
      {"good documents first", "a: 1\n---\nb: 2\n---\n- a\n, b\n",
       "f.yaml:6:1: unexpected ',': no YAML node can start here"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const LoadedDocuments docs = LoadYamlDocuments(c.text, "f.yaml");
    ASSERT_EQ(docs.issues.size(), 1u);
    EXPECT_EQ(FormatIssue(docs.issues[0]), c.issue);
    EXPECT_TRUE(docs.documents.empty());
  }
}

TEST(LoadYamlDocuments, SyntaxErrorsCarryTheirPosition) {
  auto docs = LoadYamlDocuments("a: 1\nb: [1, 2\n", "bad.yaml");
  ASSERT_EQ(docs.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(docs.issues[0]), "bad.yaml:3:1: end of sequence flow not found");
}

TEST(LoadYamlDocuments, EmptyDocumentsAreDropped) {
  auto docs = LoadYamlDocuments("---\n---\na: 1\n---\n", "m.yaml");
  EXPECT_TRUE(docs.issues.empty());
  EXPECT_EQ(docs.documents.size(), 1u);
}

}  // namespace
}  // namespace fleetwave::engine
