// Drift as the difference between git and the live object, whoever changed it
// (engine/sync/drift.h): the first differing desired field's JSON pointer, with the API server's
// normalisations (quantities, omitted zero values, defaulted key fields, stringData), list
// matching by merge key, name or position, ignoreDifferences, and Secrets compared by hash.
#include "engine/sync/drift.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/sha256.h"
#include "engine/sync/managed_fields.h"

namespace fleetwave::engine {
namespace {

Json Obj(const char* text) { return Json::parse(text); }

struct DiffCase {
  const char* name;
  const char* desired;
  const char* live;
  const char* fields;  // the union of the live object's field sets ("null": none recorded)
  std::vector<std::string> ignored;
  std::optional<std::string> want;
};

const char* kContainers = R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{
    "k:{\"name\":\"ui\"}":{".":{},"f:name":{},"f:image":{},"f:ports":{
        "k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}},
    "k:{\"name\":\"side\"}":{".":{},"f:name":{},"f:image":{}}}}}}})";

TEST(DriftTest, FirstDifference) {
  const DiffCase cases[] = {
      {"equal",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":2}})",
       "null",
       {},
       std::nullopt},
      {"a scalar changed",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":5}})",
       "null",
       {},
       "/spec/replicas"},
      {"a desired field missing live",
       R"({"spec":{"replicas":2,"paused":true}})",
       R"({"spec":{"replicas":2}})",
       "null",
       {},
       "/spec/paused"},
      {"server defaults and other managers' additions are not drift",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":2,"strategy":{"type":"RollingUpdate"}},"status":{"x":1}})",
       "null",
       {},
       std::nullopt},
      {"apiVersion, kind and status are not compared",
       R"({"apiVersion":"apps/v1beta1","kind":"Deployment","status":{"replicas":9}})",
       R"({"apiVersion":"apps/v1","kind":"Deployment"})",
       "null",
       {},
       std::nullopt},
      {"zero values the server omits",
       R"({"spec":{"a":"","b":0,"c":false,"d":{},"e":[],
       "f":null,"g":{"h":{}}}})",
       R"({"spec":{}})",
       "null",
       {},
       std::nullopt},
      {"null sets nothing",
       R"({"metadata":{"creationTimestamp":null}})",
       R"({"metadata":{"creationTimestamp":"2026-01-01T00:00:00Z"}})",
       "null",
       {},
       std::nullopt},
      {"1 and 1.0 are one number",
       R"({"spec":{"x":1}})",
       R"({"spec":{"x":1.0}})",
       "null",
       {},
       std::nullopt},
      {"quantities canonicalised: 0.5 is 500m",
       R"({"resources":{"limits":{"cpu":0.5,"memory":"1Gi"},"requests":{"cpu":"1000m",
       "memory":"1073741824"}}})",
       R"({"resources":{"limits":{"cpu":"500m","memory":"1Gi"},"requests":{"cpu":"1",
       "memory":"1Gi"}}})",
       "null",
       {},
       std::nullopt},
      {"a quantity changed",
       R"({"resources":{"limits":{"cpu":"500m"}}})",
       R"({"resources":{"limits":{"cpu":"600m"}}})",
       "null",
       {},
       "/resources/limits/cpu"},
      {"outside quantity fields strings are compared as written",
       R"({"metadata":{"annotations":{"a":"0.5"}}})",
       R"({"metadata":{"annotations":{"a":"500m"}}})",
       "null",
       {},
       "/metadata/annotations/a"},
      {"a keyed item found by its merge key, pointer at its live index",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui","image":"ui:1"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"side","image":"s:1"},
       {"name":"ui","image":"attacker/evil:latest"}]}}}})",
       kContainers,
       {},
       "/spec/template/spec/containers/1/image"},
      {"a key field the server defaults matches anything",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui","ports":[{"containerPort":80}]}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui","ports":[
       {"containerPort":80,"protocol":"TCP"}]}]}}}})",
       kContainers,
       {},
       std::nullopt},
      {"a keyed item missing: pointer at its desired index",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"side"},{"name":"ui"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"side"}]}}}})",
       kContainers,
       {},
       "/spec/template/spec/containers/1"},
      {"an extra live item (an injected sidecar) is not drift",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui"},{"name":"side"}]}}}})",
       kContainers,
       {},
       std::nullopt},
      {"items with names are matched by name without field sets",
       R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]})",
       R"({"env":[{"name":"B","value":"2"},{"name":"A","value":"9"}]})",
       "null",
       {},
       "/env/1/value"},
      {"a set: members in any order",
       R"({"finalizers":["a","b"]})",
       R"({"finalizers":["b","a"]})",
       R"({"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}})",
       {},
       std::nullopt},
      {"a set member missing",
       R"({"finalizers":["a","b"]})",
       R"({"finalizers":["a"]})",
       R"({"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}})",
       {},
       "/finalizers/1"},
      {"an atomic list: position by position",
       R"({"args":["x","y"]})",
       R"({"args":["x","z"]})",
       R"({"f:args":{}})",
       {},
       "/args/1"},
      {"an atomic list longer live",
       R"({"args":["x"]})",
       R"({"args":["x","y"]})",
       R"({"f:args":{}})",
       {},
       "/args/1"},
      {"a type change",
       R"({"spec":{"selector":{"a":"b"}}})",
       R"({"spec":{"selector":"x"}})",
       "null",
       {},
       "/spec/selector"},
      {"key order: the first difference in key order",
       R"({"a":1,"b":2})",
       R"({"a":3,"b":4})",
       "null",
       {},
       "/a"},
      {"escaped pointer tokens",
       R"({"metadata":{"labels":{"a/b~c":"1"}}})",
       R"({"metadata":{"labels":{"a/b~c":"2"}}})",
       "null",
       {},
       "/metadata/labels/a~1b~0c"},
      {"ignoreDifferences: the field",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":5}})",
       "null",
       {"/spec/replicas"},
       std::nullopt},
      {"ignoreDifferences: an ancestor",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":5}})",
       "null",
       {"/spec"},
       std::nullopt},
      {"ignoreDifferences: a part inside an atomic list",
       R"({"args":["x","y"]})",
       R"({"args":["x","z"]})",
       R"({"f:args":{}})",
       {"/args/1"},
       std::nullopt},
      {"ignoreDifferences by live index in a keyed list",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"ui","image":"ui:1"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"side"},{"name":"ui","image":"x"}]}}}})",
       kContainers,
       {"/spec/template/spec/containers/1/image"},
       std::nullopt},
      {"ignoreDifferences elsewhere hides nothing",
       R"({"spec":{"replicas":2}})",
       R"({"spec":{"replicas":5}})",
       "null",
       {"/spec/rep"},
       "/spec/replicas"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FirstDifference(Obj(c.desired), Obj(c.live), Obj(c.fields), c.ignored), c.want);
    // A projection keeps only the fields' list shape: the answer is the same with it.
    if (!Obj(c.fields).is_null()) {
      EXPECT_EQ(FirstDifference(Obj(c.desired), Obj(c.live), ListShapeOf(Obj(c.fields)), c.ignored),
                c.want);
    }
  }
}

TEST(DriftTest, ListShapeOfKeepsTheListsKeysAndSetsOnly) {
  const struct {
    const char* name;
    const char* fields;
    const char* want;
  } cases[] = {
      {"plain fields go", R"({"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:replicas":{}}})",
       "{}"},
      {"a keyed item stays, with only the lists below it", kContainers,
       R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{
           "k:{\"name\":\"ui\"}":{"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{}}},
           "k:{\"name\":\"side\"}":{}}}}}})"},
      {"a set's members stay, empty",
       R"({"f:spec":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}},"f:x":{}}})",
       R"({"f:spec":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}})"},
      {"index entries and dots go", R"({"f:l":{"i:0":{"f:a":{}}},".":{}})", "{}"},
      {"not an object", "null", "{}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ListShapeOf(Obj(c.fields)), Obj(c.want));
  }
}

TEST(DriftTest, QuantitiesAsTheApiServerReadsThem) {
  struct Q {
    Json a, b;
    bool same;
  };
  const Q cases[] = {
      {0.5, "500m", true},         {"0.5", "500m", true},
      {"1", "1000m", true},        {"1Ki", "1024", true},
      {"1Gi", "1073741824", true}, {"1e3", "1k", true},
      {"1E3", "1k", true},         {"1.5Gi", "1536Mi", true},
      {"100n", "0.1u", true},      {"2", "1", false},
      {"1Gi", "1G", false},        {"abc", "abc", false},
      {"1x", "1", false},          {"", "0", false},
      {"-1", "-1000m", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.a.dump() + " vs " + c.b.dump());
    EXPECT_EQ(SameQuantity(c.a, c.b), c.same);
  }
}

TEST(DriftTest, SecretsAreComparedByHash) {
  const ObjectRef secret{"", "Secret", "guestbook", "creds"};
  // "hunter2" is aHVudGVyMg== in base64: stringData and data say the same.
  const Json from_string_data = NormaliseForComparison(
      secret, Obj(R"({"stringData":{"password":"hunter2"},"data":{"user":"YWRtaW4="}})"));
  const Json from_data = NormaliseForComparison(
      secret, Obj(R"({"data":{"password":"aHVudGVyMg==","user":"YWRtaW4="}})"));
  EXPECT_EQ(from_string_data, from_data);
  EXPECT_FALSE(from_string_data.contains("stringData"));
  EXPECT_EQ(from_data["data"]["password"], "sha256:" + Sha256Hex("aHVudGVyMg=="));
  // No value survives normalisation.
  EXPECT_EQ(from_data.dump().find("aHVudGVyMg"), std::string::npos);
  EXPECT_EQ(from_string_data.dump().find("hunter2"), std::string::npos);

  Json live = Obj(R"({"data":{"password":"ZXZpbA==","user":"YWRtaW4="}})");
  HashSecretData(secret, live);
  EXPECT_EQ(FirstDifference(from_data, live, Json(), {}), "/data/password");
  // Other kinds are left alone.
  const ObjectRef config_map{"", "ConfigMap", "guestbook", "c"};
  const Json cm = Obj(R"({"data":{"a":"b"}})");
  EXPECT_EQ(NormaliseForComparison(config_map, cm), cm);
  // Which is what lets the comparison skip normalising (and copying) them.
  EXPECT_FALSE(ChangedByNormalising(config_map));
  EXPECT_TRUE(ChangedByNormalising(secret));
}

TEST(DriftTest, Sha256KnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padding block.
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

}  // namespace
}  // namespace fleetwave::engine
