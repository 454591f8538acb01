// What ReadGeneratorInputs reads for a set's git generators: the repositories the spec names,
// and those a templated repoURL, revision or file path names once rendered with the first
// matrix child's parameters (issue 27), round by round, each resolved once through the
// reconcile's ResolveOnce.
#include "sources/generator_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sources/fake_source.h"

namespace fleetwave::sources {
namespace {

engine::ApplicationSet Decode(const std::string& generators) {
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\nspec:\n"
      "  goTemplate: true\n  generators:\n" +
          generators +
          "  template:\n    metadata: {name: x}\n    spec: {project: default, source: {repoURL: "
          "r, path: p}, destination: {server: s, namespace: n}}\n",
      "web.yaml");
  EXPECT_TRUE(docs.issues.empty());
  engine::DecodedApplicationSet d = engine::DecodeApplicationSet(docs.documents.at(0), "web.yaml");
  EXPECT_TRUE(d.issues.empty()) << engine::FormatIssue(d.issues.at(0));
  return *d.appset;
}

size_t Resolves(const FakeSource& fake) {
  const auto calls = fake.calls();
  return static_cast<size_t>(std::count_if(calls.begin(), calls.end(), [](const std::string& c) {
    return c.rfind("resolve ", 0) == 0;
  }));
}

// The fleet repository's files list each team's repository and branch; each team's repository
// is read at its branch, with the file pattern rendered for it, and every snapshot is resolved
// once however many rounds it takes.
TEST(ReadGeneratorInputs, ReadsTheRepositoriesATemplatedRepoUrlNamesRoundByRound) {
  FakeSource fake;
  fake.SetRevision("fleet", "main", "f1");
  fake.SetFiles("fleet", "f1",
                {{"teams/a.yaml", "{team: alpha, repo: alpha, branch: prod}\n"},
                 {"teams/b.yaml", "{team: beta, repo: beta, branch: main}\n"}});
  fake.SetRevision("alpha", "prod", "a1");
  fake.SetFiles("alpha", "a1", {{"alpha/api.json", "{}"}, {"alpha/ignored.txt", "x"}});
  fake.SetRevision("beta", "main", "b1");
  fake.SetFiles("beta", "b1", {{"beta/db.json", "{}"}, {"other/x.json", "{}"}});
  const engine::ApplicationSet set = Decode(
      "    - matrix:\n        generators:\n"
      "          - git: {repoURL: fleet, revision: main, files: [{path: 'teams/*.yaml'}]}\n"
      "          - git: {repoURL: '{{.repo}}', revision: '{{.branch}}', files: [{path: "
      "'{{.team}}/*.json'}]}\n");
  ResolveOnce resolver(fake);
  const engine::GeneratorInputs inputs = ReadGeneratorInputs(set, resolver);
  ASSERT_EQ(inputs.git.size(), 3u);
  const engine::GitRepoContent& alpha = inputs.git.at({"alpha", "prod"});
  EXPECT_FALSE(alpha.error);
  EXPECT_EQ(alpha.files.size(), 1u);
  EXPECT_EQ(alpha.files.count("alpha/api.json"), 1u);
  const engine::GitRepoContent& beta = inputs.git.at({"beta", "main"});
  EXPECT_EQ(beta.files.size(), 1u);
  EXPECT_EQ(beta.files.count("beta/db.json"), 1u);
  EXPECT_EQ(Resolves(fake), 3u) << "each snapshot resolved once";
  EXPECT_TRUE(engine::GenerateApplications(set, nullptr, &inputs).repository_errors.empty());
}

// A rendered repository that cannot be read is that repository's error in the inputs (the set
// shows it), and the others are read.
TEST(ReadGeneratorInputs, ARenderedRepositoryThatCannotBeReadIsItsError) {
  FakeSource fake;
  fake.SetRevision("up", "main", "u1");
  fake.SetFiles("up", "u1", {{"apps/web/x.yaml", "{}"}});
  fake.SetFetchError("down", engine::TransientError("down", "cannot fetch: connection refused"));
  const engine::ApplicationSet set = Decode(
      "    - matrix:\n        generators:\n"
      "          - list: {elements: [{repo: up}, {repo: down}]}\n"
      "          - git: {repoURL: '{{.repo}}', revision: main, directories: [{path: "
      "'apps/*'}]}\n");
  ResolveOnce resolver(fake);
  const engine::GeneratorInputs inputs = ReadGeneratorInputs(set, resolver);
  ASSERT_EQ(inputs.git.size(), 2u);
  EXPECT_FALSE(inputs.git.at({"up", "main"}).error);
  ASSERT_TRUE(inputs.git.at({"down", "main"}).error);
  EXPECT_EQ(inputs.git.at({"down", "main"}).error->ToString(),
            "down: cannot fetch: connection refused");
  const engine::GenerateResult r = engine::GenerateApplications(set, nullptr, &inputs);
  EXPECT_EQ(r.repository_errors,
            std::vector<engine::Error>{*inputs.git.at({"down", "main"}).error});
}

}  // namespace
}  // namespace fleetwave::sources
