// Table test for the kinds deleting an app waits on (engine/deletion/deletion_kinds.h), the
// rule actors/appset_deletion.cc used to hold.
#include "engine/deletion/deletion_kinds.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using Kinds = std::vector<std::pair<std::string, std::string>>;

RenderedObject Object(const std::string& kind, Json api_version) {
  RenderedObject o;
  o.ref.kind = kind;
  o.ref.name = "x";
  o.object = Json::object();
  if (!api_version.is_null()) o.object["apiVersion"] = std::move(api_version);
  return o;
}

struct Case {
  const char* name;
  std::vector<RenderedObject> objects;
  Kinds want;
};

TEST(DeletionKindsTest, EachRenderedKindOnceSorted) {
  RenderedObject not_an_object = Object("ConfigMap", "v1");
  not_an_object.object = Json::array();
  const std::vector<Case> cases = {
      {"nothing rendered", {}, {}},
      {"one object", {Object("ConfigMap", "v1")}, {{"v1", "ConfigMap"}}},
      {"duplicates once, sorted by apiVersion then kind",
       {Object("Service", "v1"), Object("Deployment", "apps/v1"), Object("ConfigMap", "v1"),
        Object("Service", "v1")},
       {{"apps/v1", "Deployment"}, {"v1", "ConfigMap"}, {"v1", "Service"}}},
      {"the same kind in two versions is two kinds",
       {Object("CloneSet", "apps.kruise.io/v1beta1"),
        Object("CloneSet", "apps.kruise.io/v1alpha1")},
       {{"apps.kruise.io/v1alpha1", "CloneSet"}, {"apps.kruise.io/v1beta1", "CloneSet"}}},
      {"no apiVersion names none", {Object("ConfigMap", nullptr)}, {}},
      {"an apiVersion that is not a string names none", {Object("ConfigMap", 1)}, {}},
      {"an object that is not a JSON object names none", {not_an_object}, {}},
  };
  for (const auto& c : cases) EXPECT_EQ(DeletionKindsOf(c.objects), c.want) << c.name;
}

}  // namespace
}  // namespace fleetwave::engine
