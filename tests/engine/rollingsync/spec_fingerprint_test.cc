// The spec fingerprint (application.h) and the spec comparison built on it
// (rollout_spec_diff.h): equal fingerprints must mean equal specs, so a reconcile may trust
// them; anything the fingerprint cannot vouch for falls back to the full comparison.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollout_spec_diff.h"
#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;

const Json kSpec = {
    {"project", "default"},
    {"source", {{"repoURL", "https://git.example/r.git"}, {"targetRevision", "HEAD"}}},
    {"destination", {{"server", "https://c1.example:6443"}, {"namespace", "n"}}},
    {"syncPolicy", {{"syncOptions", {"CreateNamespace=true"}}}}};

TEST(SpecFingerprint, EqualSpecsHaveEqualFingerprints) {
  // Built in another key order: the object is the same document.
  Json reordered = Json::object();
  reordered["syncPolicy"] = kSpec["syncPolicy"];
  reordered["destination"] = kSpec["destination"];
  reordered["source"] = kSpec["source"];
  reordered["project"] = "default";
  EXPECT_NE(SpecFingerprint(kSpec), 0u);
  EXPECT_EQ(SpecFingerprint(kSpec), SpecFingerprint(reordered));
  EXPECT_EQ(SpecFingerprint(kSpec), SpecFingerprint(Json::parse(kSpec.dump())));
}

TEST(SpecFingerprint, IntegersOfEitherSignednessAreOneValue) {
  // JSON equality does not tell 3 (signed) from 3u; neither may the fingerprint.
  EXPECT_EQ(SpecFingerprint(Json{{"n", 3}}), SpecFingerprint(Json{{"n", 3u}}));
  EXPECT_NE(SpecFingerprint(Json{{"n", -3}}), SpecFingerprint(Json{{"n", 3}}));
}

TEST(SpecFingerprint, DifferentSpecsHaveDifferentFingerprints) {
  struct Case {
    const char* name;
    Json a, b;
  };
  const std::vector<Case> cases = {
      {"value", {{"a", "x"}}, {{"a", "y"}}},
      {"key", {{"a", "x"}}, {{"b", "x"}}},
      {"key and value boundary", {{"ab", "c"}}, {{"a", "bc"}}},
      {"string vs number", {{"a", "1"}}, {{"a", 1}}},
      {"null vs false", {{"a", nullptr}}, {{"a", false}}},
      {"nesting",
       {{"a", Json::array({1, Json::array({2})})}},
       {{"a", Json::array({Json::array({1}), 2})}}},
      {"empty object vs empty array", {{"a", Json::object()}}, {{"a", Json::array()}}},
      {"extra field", kSpec,
       [] {
         Json s = kSpec;
         s["source"]["path"] = "apps";
         return s;
       }()},
      {"array order", {{"a", {"x", "y"}}}, {{"a", {"y", "x"}}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_NE(c.a, c.b);
    EXPECT_NE(SpecFingerprint(c.a), SpecFingerprint(c.b));
  }
}

TEST(SpecFingerprint, NoneForWhatOnlyAFullComparisonMayJudge) {
  // NaN never equals itself, so two specs holding one are never equal: no fingerprint may
  // say they are.
  EXPECT_EQ(SpecFingerprint(Json{{"a", std::numeric_limits<double>::quiet_NaN()}}), 0u);
  EXPECT_EQ(SpecFingerprint(Json("spec")), 0u);
  EXPECT_EQ(SpecFingerprint(Json::array()), 0u);
  EXPECT_FALSE(SpecFingerprintsEqual(0, 0));
  EXPECT_TRUE(SpecFingerprintsEqual(7, 7));
}

TEST(SpecFingerprint, SetWhereAnApplicationIsDecoded) {
  Issues issues;
  const auto app =
      DecodeApplication(Json{{"metadata", {{"name", "a"}}}, {"spec", kSpec}}, "f", "", issues);
  ASSERT_TRUE(app);
  EXPECT_EQ(app->spec_fingerprint, SpecFingerprint(kSpec));
  const auto no_spec = DecodeApplication(Json{{"metadata", {{"name", "a"}}}}, "f", "", issues);
  ASSERT_TRUE(no_spec);
  EXPECT_EQ(no_spec->spec_fingerprint, SpecFingerprint(Json::object()));
}

TEST(SpecFingerprint, SetWhereAnApplicationIsGenerated) {
  const auto decoded = DecodeApplicationSet(YAML::Load(R"(
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: s}
spec:
  generators:
    - list:
        elements: [{name: a, rev: r1}, {name: b, rev: r2}]
  template:
    metadata: {name: '{{name}}'}
    spec:
      project: default
      source: {repoURL: https://git.example/r.git, targetRevision: '{{rev}}'}
      destination: {server: https://kubernetes.default.svc, namespace: n}
)"),
                                            "set.yaml");
  ASSERT_TRUE(decoded.appset);
  const GenerateResult generated = GenerateApplications(*decoded.appset, nullptr);
  ASSERT_EQ(generated.apps.size(), 2u);
  for (const auto& app : generated.apps) {
    SCOPED_TRACE(app.name);
    EXPECT_NE(app.spec_fingerprint, 0u);
    EXPECT_EQ(app.spec_fingerprint, SpecFingerprint(DesiredSpecOf(app)));
  }
  EXPECT_NE(generated.apps[0].spec_fingerprint, generated.apps[1].spec_fingerprint);
}

// AppSpecDiffers trusts equal fingerprints and compares in full otherwise.
TEST(AppSpecDiffers, AnswersFromTheFingerprintsOrTheSpecs) {
  struct Case {
    const char* name;
    Json desired_spec, live_spec;
    uint64_t desired_fp, live_fp;
    std::vector<std::string> ignore;
    bool differs;
  };
  Json other = kSpec;
  other["source"]["targetRevision"] = "v2";
  const uint64_t fp = SpecFingerprint(kSpec);
  const uint64_t other_fp = SpecFingerprint(other);
  const std::vector<Case> cases = {
      {"equal fingerprints", kSpec, kSpec, fp, fp, {}, false},
      // Proves the shortcut is taken: the documents differ, the (forged) fingerprints agree.
      {"equal fingerprints are trusted", kSpec, other, fp, fp, {}, false},
      {"different fingerprints, different specs", kSpec, other, fp, other_fp, {}, true},
      {"different fingerprints, equal specs", kSpec, kSpec, fp, fp + 1, {}, false},
      {"no fingerprints, different specs", kSpec, other, 0, 0, {}, true},
      {"no fingerprints, equal specs", kSpec, kSpec, 0, 0, {}, false},
      {"one fingerprint missing", kSpec, other, 0, other_fp, {}, true},
      {"difference ignored", kSpec, other, fp, other_fp, {"/spec/source/targetRevision"}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Application live = Live("a", "1");
    live.spec = c.live_spec;
    live.spec_fingerprint = c.live_fp;
    GeneratedApplication desired = Desired(live);
    desired.object["spec"] = c.desired_spec;
    desired.spec_fingerprint = c.desired_fp;
    EXPECT_EQ(AppSpecDiffers(desired, live, c.ignore), c.differs);
  }
}

}  // namespace
}  // namespace fleetwave::engine
