// The guard that keeps yaml-cpp 0.7 from looping forever: a text whose next document would
// start at a token that starts no node is refused at that token; everything else is left to
// yaml-cpp, which reads it as before.
#include "engine/yaml_prescan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace fleetwave::engine {
namespace {

std::string Format(const std::optional<YamlReadProblem>& p) {
  if (!p) return "none";
  return std::to_string(p->pos.line) + ":" + std::to_string(p->pos.column) + ": " + p->message;
}

// Each refused text made YAML::LoadAll append empty documents until memory ran out (the first
// three were found by the appset, config and yaml_json fuzz targets, the others by reading
// yaml-cpp's SingleDocParser: any complete node followed by a flow entry).
TEST(PrescanYaml, RunawayDocumentsAreRefused) {
  const std::string comma = "unexpected ',': no YAML node can start here";
  struct Case {
    const char* name;
    std::string text;
    std::string problem;
  } cases[] = {
      {"fuzz finding: leading comma", ",afnI.:1 +.inf, ", "1:1: " + comma},
      {"fuzz finding: a tag, then a comma", "!,opchecke[", "1:2: " + comma},
      {"fuzz finding: second document", "a: 1\n---\n,x", "3:1: " + comma},
      {"after blanks", "  ,x", "1:3: " + comma},
      {"after a comment line", "# c\n,a", "2:1: " + comma},
      {"after a marker", "--- ,x", "1:5: " + comma},
      {"after a directive", "%YAML 1.2\n---\n,x", "3:1: " + comma},
      {"after a spaced tag", "!x ,", "1:4: " + comma},
      {"after an anchor", "&a ,", "1:4: " + comma},
      {"after a flow map", "{a: 1} ,", "1:8: " + comma},
      {"after a flow sequence, next line", "[a]\n,b", "2:1: " + comma},
      {"after a block sequence", "- a\n,", "2:1: " + comma},
      {"after a quoted scalar", "\"a\"\n,", "2:1: " + comma},
      {"after a document end marker", "--- !t\n...\n,", "3:1: " + comma},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Format(PrescanYaml(c.text)), c.problem);
  }
}

// yaml-cpp's own verdict passes through unchanged: what it reads is not refused, its syntax
// errors come back with their position.
TEST(PrescanYaml, EverythingElseIsYamlCppsVerdict) {
  struct Case {
    const char* name;
    std::string text;
    std::string problem;
  } cases[] = {
      {"a map", "a: 1\nb: [x, y]\n", "none"},
      {"comma inside a flow sequence", "[,]", "none"},
      {"comma in a plain scalar", "a, b", "none"},
      {"empty documents", "---\n---\n---\na: 1\n...\n", "none"},
      {"a text yaml-cpp splits into two documents", "- a\n- b\nc", "none"},
      {"a tag alone, then a document end", "a\n---\n!t\n...", "none"},
      {"nothing at all", "", "none"},
      {"only a comment", "# c\n", "none"},
      {"comma after a block map", "a: 1\n,", "2:1: end of map not found"},
      {"unclosed flow sequence", "a: 1\nb: [1, 2\n", "3:1: end of sequence flow not found"},
      {"unmatched flow end", "[a]]", "1:4: illegal flow end"},
      {"undefined alias", "*a ,", "1:1: the referenced anchor is not defined"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Format(PrescanYaml(c.text)), c.problem);
  }
}

}  // namespace
}  // namespace fleetwave::engine
