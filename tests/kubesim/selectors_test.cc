#include "tools/kubesim/selectors.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

TEST(LabelSelectorTest, MatchesEveryOperator) {
  const std::map<std::string, std::string> labels = {{"app", "web"}, {"tier", "front"}};
  struct Case {
    const char* name;
    const char* selector;
    bool matches;
  } cases[] = {
      {"empty selects all", "", true},
      {"equals", "app=web", true},
      {"double equals", "app==web", true},
      {"equals other value", "app=db", false},
      {"not equals", "app!=db", true},
      {"not equals same value", "app!=web", false},
      {"not equals on absent key", "zone!=a", true},
      {"in", "tier in (front,back)", true},
      {"in without match", "tier in (back)", false},
      {"notin", "tier notin (back)", true},
      {"notin on absent key", "zone notin (a)", true},
      {"notin with match", "tier notin (front, back)", false},
      {"exists", "app", true},
      {"exists absent", "zone", false},
      {"does not exist", "!zone", true},
      {"does not exist present", "!app", false},
      {"conjunction", "app=web,tier in (front),!zone", true},
      {"conjunction failing", "app=web,tier notin (front)", false},
      {"spaces", " app = web , tier ", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    auto s = LabelSelector::Parse(c.selector, &error);
    ASSERT_TRUE(s.has_value()) << error;
    EXPECT_EQ(s->Matches(labels), c.matches);
  }
}

TEST(LabelSelectorTest, RejectsMalformed) {
  for (const char* bad : {"app in web", "app in (a", "a b=c", "app=web,,tier", "ap p"}) {
    SCOPED_TRACE(bad);
    std::string error;
    EXPECT_FALSE(LabelSelector::Parse(bad, &error).has_value());
    EXPECT_FALSE(error.empty());
  }
}

TEST(LabelSelectorTest, ReadsLabelsFromObjects) {
  std::string error;
  auto s = LabelSelector::Parse("app=web", &error);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->Matches(nlohmann::json::parse(R"({"metadata":{"labels":{"app":"web"}}})")));
  EXPECT_FALSE(s->Matches(nlohmann::json::parse(R"({"metadata":{}})")));
}

TEST(FieldSelectorTest, NameAndNamespaceOnly) {
  auto obj = nlohmann::json::parse(R"({"metadata":{"name":"a","namespace":"ns"}})");
  struct Case {
    const char* selector;
    bool matches;
  } cases[] = {{"metadata.name=a", true},
               {"metadata.name==b", false},
               {"metadata.namespace=ns,metadata.name!=b", true},
               {"metadata.namespace!=ns", false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.selector);
    std::string error;
    auto s = FieldSelector::Parse(c.selector, &error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(s->Matches(obj), c.matches);
  }
  std::string error;
  EXPECT_FALSE(FieldSelector::Parse("spec.replicas=1", &error));
  EXPECT_NE(error.find("not supported"), std::string::npos);
}

}  // namespace
}  // namespace fleetwave::kubesim
