// The git generators over repository content handed in as values: directories with
// include/exclude patterns, files flattened into parameters (lists of objects give one set per
// element), the path parameters in both template languages, pathParamPrefix, values.
#include "engine/appset/git_generator.h"

#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::ExpectApps;
using testing::Messages;

GeneratorInputs Repo() {
  GitRepoContent c;
  c.directories = {"apps",        "apps/api",         "apps/api/base", "apps/Web_UI",
                   "apps/legacy", "clusters",         "clusters/eu",   "clusters/eu/prod",
                   "clusters/us", "clusters/us/prod", "docs"};
  c.files = {
      {"clusters/eu/prod/config.json",
       R"({"cluster": {"name": "eu-prod", "address": "https://10.0.0.3:6443"}, "zones": ["a", "b"]})"},
      {"clusters/us/prod/config.yaml",
       "cluster:\n  name: us-prod\n  address: https://10.0.0.2:6443\nzones: [c]\n"},
      {"teams/list.yaml", "- {team: alpha, tier: 1}\n- {team: beta, tier: 2}\n"},
  };
  GeneratorInputs in;
  in.git[{"file:///repo", "main"}] = c;
  return in;
}

struct Case {
  const char* name;
  std::string spec;
  std::vector<std::string> want;
};

class GitGenerates : public ::testing::TestWithParam<Case> {};

TEST_P(GitGenerates, TheExpectedApplications) {
  auto d = DecodeSpec(GetParam().spec);
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  const GeneratorInputs in = Repo();
  ExpectApps(GenerateApplications(*d.appset, nullptr, &in), GetParam().want);
}

std::string Set(const std::string& go, const std::string& git, const std::string& name,
                const std::string& path, const std::string& ns) {
  return "spec:\n" + go + "  generators:\n    - git:\n        repoURL: file:///repo\n" +
         "        revision: main\n" + git + "  template:\n    metadata: {name: '" + name +
         "'}\n    spec: {project: default, source: {repoURL: file:///repo, path: '" + path +
         "'}, destination: {server: https://10.0.0.4:6443, namespace: '" + ns + "'}}\n";
}

std::string App(const std::string& name, const std::string& path, const std::string& ns) {
  return "{metadata: {name: '" + name +
         "'}, spec: {project: default, source: {repoURL: 'file:///repo', path: '" + path +
         "'}, destination: {server: 'https://10.0.0.4:6443', namespace: '" + ns + "'}}}";
}

const char* kDirs =
    "        directories:\n          - path: 'apps/*'\n          - {path: apps/legacy, "
    "exclude: true}\n";

INSTANTIATE_TEST_SUITE_P(
    Rules, GitGenerates,
    ::testing::Values(
        Case{"DirectoriesFasttemplate",
             Set("", kDirs, "{{path.basenameNormalized}}", "{{path}}",
                 "{{path[0]}}-{{path.basename}}"),
             {App("api", "apps/api", "apps-api"), App("web-ui", "apps/Web_UI", "apps-Web_UI")}},
        Case{"DirectoriesGoTemplate",
             Set("  goTemplate: true\n", kDirs, "{{.path.basenameNormalized}}", "{{.path.path}}",
                 "{{index .path.segments 0}}-{{.path.basename}}"),
             {App("api", "apps/api", "apps-api"), App("web-ui", "apps/Web_UI", "apps-Web_UI")}},
        Case{"ExcludeWinsWhateverTheOrder",
             Set("",
                 "        directories:\n          - {path: 'clusters/*/prod', exclude: true}\n"
                 "          - path: 'clusters/**'\n",
                 "{{path.basename}}-{{path[1]}}", "{{path}}", "x"),
             {App("eu-eu", "clusters/eu", "x"), App("us-us", "clusters/us", "x")}},
        Case{"DirectoriesWithPrefixAndValues",
             Set("",
                 kDirs + std::string("        pathParamPrefix: app\n"
                                     "        values: {ns: 'team-{{app.path.basename}}'}\n"),
                 "{{app.path.basenameNormalized}}", "{{app.path}}", "{{values.ns}}"),
             {App("api", "apps/api", "team-api"), App("web-ui", "apps/Web_UI", "team-Web_UI")}},
        Case{"DirectoriesWithPrefixGoTemplate",
             Set("  goTemplate: true\n",
                 kDirs + std::string("        pathParamPrefix: app\n"
                                     "        values: {ns: 'team-{{.app.path.basename}}'}\n"),
                 "{{.app.path.basenameNormalized}}", "{{.app.path.path}}", "{{.values.ns}}"),
             {App("api", "apps/api", "team-api"), App("web-ui", "apps/Web_UI", "team-Web_UI")}},
        Case{"FilesFlattenNestedKeysFasttemplate",
             Set("", "        files:\n          - path: 'clusters/**/config.*'\n",
                 "{{cluster.name}}", "{{path}}/{{path.filename}}", "{{path[1]}}-{{zones.0}}"),
             {App("eu-prod", "clusters/eu/prod/config.json", "eu-a"),
              App("us-prod", "clusters/us/prod/config.yaml", "us-c")}},
        Case{"FilesKeepNestedKeysGoTemplate",
             Set("  goTemplate: true\n",
                 "        files:\n          - path: 'clusters/**/config.*'\n", "{{.cluster.name}}",
                 "{{.path.path}}/{{.path.filenameNormalized}}",
                 "{{index .path.segments 1}}-{{index .zones 0}}"),
             {App("eu-prod", "clusters/eu/prod/config.json", "eu-a"),
              App("us-prod", "clusters/us/prod/config.yaml", "us-c")}},
        Case{"FilesListGivesOneSetPerElement",
             Set("", "        files:\n          - path: teams/*.yaml\n", "{{team}}", "{{path}}",
                 "tier-{{tier}}"),
             {App("alpha", "teams", "tier-1"), App("beta", "teams", "tier-2")}},
        Case{"FilesExcluded",
             Set("",
                 "        files:\n          - path: 'clusters/**'\n"
                 "          - {path: 'clusters/us/**', exclude: true}\n",
                 "{{cluster.name}}", "{{path}}", "x"),
             {App("eu-prod", "clusters/eu/prod", "x")}},
        Case{"GitInAMatrixWithAList",
             "spec:\n  generators:\n    - matrix:\n        generators:\n"
             "          - git: {repoURL: 'file:///repo', revision: main, files: [{path: "
             "'teams/*.yaml'}]}\n"
             "          - list: {elements: [{env: dev}, {env: prod}]}\n"
             "  template:\n    metadata: {name: '{{team}}-{{env}}'}\n"
             "    spec: {project: default, source: {repoURL: file:///repo, path: '{{path}}'}, "
             "destination: {server: https://10.0.0.4:6443, namespace: '{{env}}'}}\n",
             {App("alpha-dev", "teams", "dev"), App("alpha-prod", "teams", "prod"),
              App("beta-dev", "teams", "dev"), App("beta-prod", "teams", "prod")}}),
    [](const auto& info) { return info.param.name; });

TEST(GitGenerator, ARepositoryNotReadIsAnIssue) {
  auto d = DecodeSpec(Set("", kDirs, "{{path.basename}}", "{{path}}", "x"));
  ASSERT_TRUE(d.appset);
  GeneratorInputs empty;
  EXPECT_EQ(Messages(GenerateApplications(*d.appset, nullptr, &empty).issues),
            (std::vector<std::string>{"set.yaml:7:9: spec.generators[0]: git generator: "
                                      "repository \"file:///repo\" at revision \"main\" was not "
                                      "read"}));
  EXPECT_TRUE(GenerateApplications(*d.appset, nullptr).apps.empty())
      << "callers that read no repositories get nothing from git generators";
}

TEST(GitGenerator, AFileThatIsNotAnObjectIsAnIssue) {
  auto d = DecodeSpec(Set("", "        files:\n          - path: x.yaml\n", "{{a}}", "p", "x"));
  ASSERT_TRUE(d.appset);
  GeneratorInputs in;
  in.git[{"file:///repo", "main"}].files = {{"x.yaml", "[1, 2]\n"}};
  EXPECT_EQ(Messages(GenerateApplications(*d.appset, nullptr, &in).issues),
            (std::vector<std::string>{
                "set.yaml:7:9: spec.generators[0]: git generator: x.yaml: element 0 is not an "
                "object: a git files generator needs an object or a list of objects"}));
}

TEST(GitGenerator, RequestsNameEachRepositoryOnceWithTheFilePatterns) {
  auto d = DecodeSpec(
      "spec:\n  generators:\n    - matrix:\n        generators:\n"
      "          - git: {repoURL: r1, revision: main, files: [{path: 'a/*.json'}, {path: 'a/x', "
      "exclude: true}]}\n"
      "          - git: {repoURL: r1, revision: main, directories: [{path: '*'}]}\n"
      "    - git: {repoURL: '{{templated}}', revision: main, directories: [{path: '*'}]}\n"
      "  template:\n    metadata: {name: x}\n    spec: {project: default, source: {repoURL: r, "
      "path: p}, destination: {server: s, namespace: n}}\n");
  ASSERT_TRUE(d.appset) << Messages(d.issues)[0];
  auto reqs = GitRequestsOf(*d.appset);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].repo_url, "r1");
  EXPECT_EQ(reqs[0].revision, "main");
  ASSERT_EQ(reqs[0].file_patterns.size(), 1u);
  EXPECT_EQ(reqs[0].file_patterns[0].path, "a/*.json");
}

// A repository a git generator could not read is an issue and a repository error: the caller
// shows the latter on the set (ErrorOccurred) while the last good generation stays in force.
TEST(GitGenerator, ARepositoryThatCannotBeReadIsARepositoryError) {
  auto d = DecodeSpec(Set("", kDirs, "{{path.basename}}", "{{path}}", "x"));
  ASSERT_TRUE(d.appset);
  GeneratorInputs in;
  const Error gone = NotFoundError("file:///repo", "unknown revision \"main\"");
  in.git[{"file:///repo", "main"}].error = gone;
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, &in);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            (std::vector<std::string>{"set.yaml:7:9: spec.generators[0]: git generator: "
                                      "file:///repo: unknown revision \"main\""}));
  EXPECT_EQ(r.repository_errors, std::vector<Error>{gone});

  in.git[{"file:///repo", "main"}] = Repo().git.at({"file:///repo", "main"});
  in.git[{"file:///repo", "main"}].files = {{"x.yaml", "[1]\n"}};
  EXPECT_TRUE(GenerateApplications(*d.appset, nullptr, &in).repository_errors.empty())
      << "a repository that reads is no repository error";
}

// A matrix whose second child is a git generator with a templated repoURL and revision (as
// Argo CD renders it with each parameter set of the first child): GitRequestsFor asks for each
// resolved repository once the first child's parameters are known, round by round, and
// generation reads each one.
TEST(GitGenerator, ATemplatedRepoUrlIsReadPerParameterSetOfTheFirstMatrixChild) {
  auto d = DecodeSpec(
      "spec:\n  goTemplate: true\n  generators:\n    - matrix:\n        generators:\n"
      "          - git: {repoURL: 'https://git.example.com/fleet', revision: main, files: "
      "[{path: 'teams/*.yaml'}]}\n"
      "          - git:\n              repoURL: '{{.repo}}'\n              revision: "
      "'{{.branch}}'\n              files: [{path: '{{.team}}/*.json'}]\n"
      "  template:\n    metadata: {name: '{{.team}}-{{.app}}'}\n"
      "    spec: {project: default, source: {repoURL: '{{.repo}}', targetRevision: "
      "'{{.branch}}', path: '{{.path.path}}'}, destination: {server: https://10.0.0.4:6443, "
      "namespace: '{{.team}}'}}\n");
  ASSERT_TRUE(d.appset) << Messages(d.issues)[0];
  EXPECT_TRUE(GitRequestsNeedParameters(*d.appset));
  EXPECT_TRUE(GitRequestsOf(*d.appset).size() == 1u) << "only the literal one from the spec";

  GeneratorInputs in;
  auto keys = [](const std::vector<GitRequest>& reqs) {
    std::vector<std::string> out;
    for (const auto& r : reqs) {
      std::string patterns;
      for (const auto& p : r.file_patterns) patterns += " " + p.path;
      out.push_back(r.repo_url + "@" + r.revision + patterns);
    }
    return out;
  };
  // Round 1: only the first child's repository is known.
  EXPECT_EQ(keys(GitRequestsFor(*d.appset, nullptr, in)),
            (std::vector<std::string>{"https://git.example.com/fleet@main teams/*.yaml"}));
  in.git[{"https://git.example.com/fleet", "main"}].files = {
      {"teams/a.yaml", "{team: alpha, repo: 'https://git.example.com/alpha', branch: prod}\n"},
      {"teams/b.yaml", "{team: beta, repo: 'ssh://git@git.example.com/beta', branch: main}\n"}};
  // Round 2: each team's repository, at its branch, with its rendered file pattern.
  EXPECT_EQ(keys(GitRequestsFor(*d.appset, nullptr, in)),
            (std::vector<std::string>{"https://git.example.com/fleet@main teams/*.yaml",
                                      "https://git.example.com/alpha@prod alpha/*.json",
                                      "ssh://git@git.example.com/beta@main beta/*.json"}));
  in.git[{"https://git.example.com/alpha", "prod"}].files = {
      {"alpha/api.json", R"({"app": "api"})"}, {"alpha/ui.json", R"({"app": "ui"})"}};
  in.git[{"ssh://git@git.example.com/beta", "main"}].files = {{"beta/db.json", R"({"app": "db"})"}};
  // Round 3: nothing new to read.
  EXPECT_EQ(GitRequestsFor(*d.appset, nullptr, in).size(), 3u);

  const auto app = [](const std::string& name, const std::string& repo, const std::string& rev,
                      const std::string& path, const std::string& ns) {
    return "{metadata: {name: '" + name + "'}, spec: {project: default, source: {repoURL: '" +
           repo + "', targetRevision: '" + rev + "', path: '" + path +
           "'}, destination: {server: 'https://10.0.0.4:6443', namespace: '" + ns + "'}}}";
  };
  ExpectApps(GenerateApplications(*d.appset, nullptr, &in),
             {app("alpha-api", "https://git.example.com/alpha", "prod", "alpha", "alpha"),
              app("alpha-ui", "https://git.example.com/alpha", "prod", "alpha", "alpha"),
              app("beta-db", "ssh://git@git.example.com/beta", "main", "beta", "beta")});

  // A team's repository that cannot be read is that repository's error.
  const Error refused = PermanentError("ssh://git@git.example.com/beta",
                                       "cannot fetch: the host key of git.example.com does not "
                                       "match its entry in known_hosts");
  in.git[{"ssh://git@git.example.com/beta", "main"}] = GitRepoContent{{}, {}, refused};
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, &in);
  EXPECT_EQ(r.repository_errors, std::vector<Error>{refused});
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].path, "spec.generators[0].matrix.generators[1]");
}

// A list first child in fasttemplate: `repoURL: '{{url}}'` asks for each element's repository.
TEST(GitGenerator, ATemplatedRepoUrlFromAListInFasttemplate) {
  auto d = DecodeSpec(
      "spec:\n  generators:\n    - matrix:\n        generators:\n"
      "          - list: {elements: [{url: 'https://a.example/r', env: dev}, {url: "
      "'https://b.example/r', env: prod}]}\n"
      "          - git: {repoURL: '{{url}}', revision: '{{env}}', directories: [{path: "
      "'apps/*'}]}\n"
      "  template:\n    metadata: {name: '{{env}}-{{path.basename}}'}\n"
      "    spec: {project: default, source: {repoURL: '{{url}}', path: '{{path}}'}, "
      "destination: {server: https://10.0.0.4:6443, namespace: '{{env}}'}}\n");
  ASSERT_TRUE(d.appset) << Messages(d.issues)[0];
  GeneratorInputs in;
  const auto reqs = GitRequestsFor(*d.appset, nullptr, in);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].repo_url, "https://a.example/r");
  EXPECT_EQ(reqs[0].revision, "dev");
  EXPECT_EQ(reqs[1].repo_url, "https://b.example/r");
  EXPECT_EQ(reqs[1].revision, "prod");
  in.git[{"https://a.example/r", "dev"}].directories = {"apps", "apps/web"};
  in.git[{"https://b.example/r", "prod"}].directories = {"apps", "apps/api"};
  const auto app = [](const std::string& name, const std::string& repo, const std::string& path,
                      const std::string& ns) {
    return "{metadata: {name: '" + name + "'}, spec: {project: default, source: {repoURL: '" +
           repo + "', path: '" + path +
           "'}, destination: {server: 'https://10.0.0.4:6443', namespace: '" + ns + "'}}}";
  };
  ExpectApps(GenerateApplications(*d.appset, nullptr, &in),
             {app("dev-web", "https://a.example/r", "apps/web", "dev"),
              app("prod-api", "https://b.example/r", "apps/api", "prod")});
}

// A repoURL or revision no parameter resolves is an error naming the set and the field, and is
// never asked for (reading "{{url}}" would only fail as a URL that is not one).
TEST(GitGenerator, ATemplateNoParameterResolvesIsAnErrorNamingTheSetAndTheField) {
  struct Case {
    const char* name;
    std::string generators;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"outside a matrix",
       "    - git: {repoURL: '{{url}}', revision: main, directories: [{path: '*'}]}\n",
       "set.yaml:6:12: spec.generators[0].git.repoURL: applicationset \"web\": the git "
       "generator's repoURL \"{{url}}\" is a template no parameter resolves (only the second "
       "generator of a matrix is rendered, with each parameter set of the first)"},
      {"a parameter the first child does not give (fasttemplate leaves it)",
       "    - matrix:\n        generators:\n          - list: {elements: [{env: dev}]}\n"
       "          - git: {repoURL: 'https://a.example/r', revision: '{{branch}}', "
       "directories: [{path: '*'}]}\n",
       "set.yaml:9:18: spec.generators[0].matrix.generators[1].git.revision: applicationset "
       "\"web\": the git generator's revision \"{{branch}}\" is a template no parameter "
       "resolves (only the second generator of a matrix is rendered, with each parameter set "
       "of the first)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto d = DecodeSpec("spec:\n  generators:\n" + c.generators +
                        "  template:\n    metadata: {name: x}\n    spec: {project: default, "
                        "source: {repoURL: r, path: p}, destination: {server: s, namespace: "
                        "n}}\n");
    ASSERT_TRUE(d.appset) << Messages(d.issues)[0];
    GeneratorInputs in;
    EXPECT_TRUE(GitRequestsFor(*d.appset, nullptr, in).empty());
    const GenerateResult r = GenerateApplications(*d.appset, nullptr, &in);
    EXPECT_EQ(Messages(r.issues), std::vector<std::string>{c.want});
    EXPECT_TRUE(r.repository_errors.empty());
  }
}

struct GlobCase {
  const char* pattern;
  const char* path;
  bool match;
};

TEST(GitPathMatches, GlobRules) {
  const GlobCase cases[] = {
      {"apps/*", "apps/api", true},
      {"apps/*", "apps/api/base", false},
      {"apps/**", "apps/api/base", true},
      {"apps/?pi", "apps/api", true},
      {"apps/[a-c]*", "apps/api", true},
      {"apps/[!a]*", "apps/api", false},
      {"**/config.json", "x/y/config.json", true},
      {"*.yaml", "a/b.yaml", false},
      {"apps/api", "apps/api", true},
      {"apps", "apps/api", false},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GitPathMatches(c.pattern, c.path), c.match) << c.pattern << " ~ " << c.path;
  }
}

}  // namespace
}  // namespace fleetwave::engine
