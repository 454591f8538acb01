// AppProject documents (engine/appset/app_project.h): decoding with issues that name the file and
// the field, and the enforcement of destinations, sourceRepos and clusterResourceWhitelist with
// Argo CD's messages.
#include <string>

#include <gtest/gtest.h>

#include "engine/appset/app_project.h"
#include "engine/validation.h"

namespace fleetwave::engine {
namespace {

DecodedAppProject Decode(const std::string& yaml) {
  return DecodeAppProject(YAML::Load(yaml), "projects.yaml");
}

const char* kProd = R"(
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: prod, namespace: argocd}
spec:
  description: production
  sourceRepos: ['https://git.example.com/*', '!https://git.example.com/forbidden']
  destinations:
  - {server: 'https://prod-*', namespace: 'web-*'}
  - {name: 'eu-*', namespace: '*'}
  - {server: 'https://prod-2', namespace: 'web-secret'}
  - {server: '!https://prod-3', namespace: '*'}
  clusterResourceWhitelist:
  - {group: '', kind: Namespace}
  - {group: 'rbac.authorization.k8s.io', kind: '*'}
  syncWindows:
  - {kind: deny, schedule: '0 22 * * *', duration: 1h, applications: ['*'], timeZone: Europe/Berlin, manualSync: true}
)";

AppProjects Projects(const std::vector<std::string>& docs) {
  AppProjects out;
  for (const auto& d : docs) {
    DecodedAppProject p = Decode(d);
    EXPECT_TRUE(p.issues.empty()) << FormatIssue(p.issues.front());
    if (p.project) out.projects.push_back(*p.project);
  }
  std::sort(out.projects.begin(), out.projects.end(),
            [](const AppProject& a, const AppProject& b) { return a.name < b.name; });
  return out;
}

TEST(AppProjectTest, DecodesTheFieldsFleetwaveEnforces) {
  DecodedAppProject d = Decode(kProd);
  ASSERT_TRUE(d.issues.empty()) << FormatIssue(d.issues.front());
  ASSERT_TRUE(d.project);
  EXPECT_EQ(d.project->name, "prod");
  EXPECT_EQ(d.project->destinations.size(), 4u);
  EXPECT_EQ(d.project->source_repos.size(), 2u);
  ASSERT_EQ(d.project->sync_windows.size(), 1u);
  const SyncWindow& w = d.project->sync_windows[0];
  EXPECT_TRUE(w.deny);
  EXPECT_EQ(w.duration_seconds, 3600);
  EXPECT_EQ(w.time_zone, "Europe/Berlin");
  EXPECT_TRUE(w.manual_sync);
  EXPECT_EQ(w.zone, nullptr);  // resolved by the binary, not the engine
}

TEST(AppProjectTest, IssuesNameTheFileAndTheField) {
  struct Row {
    const char* spec;
    const char* issue;
  };
  for (const Row& row : {
           Row{"syncWindows: [{kind: block, schedule: '* * * * *', duration: 1h, "
               "applications: ['*']}]",
               "projects.yaml:5:24: spec.syncWindows[0].kind: unsupported value \"block\""},
           Row{"syncWindows: [{kind: deny, schedule: '* * *', duration: 1h, applications: ['*']}]",
               "spec.syncWindows[0].schedule: invalid schedule \"* * *\": a schedule has 5 fields"},
           Row{"syncWindows: [{kind: deny, schedule: '* * * * *', duration: soon, "
               "applications: ['*']}]",
               "spec.syncWindows[0].duration: invalid duration \"soon\""},
           Row{"syncWindows: [{kind: deny, schedule: '* * * * *', duration: 1h, "
               "timeZone: ../../etc/passwd, applications: ['*']}]",
               "spec.syncWindows[0].timeZone: \"../../etc/passwd\" is not a time zone name"},
           Row{"syncWindows: [{kind: deny, schedule: '* * * * *', duration: 1h}]",
               "spec.syncWindows[0]: a sync window applies to nothing"},
           Row{"syncWindows: [{kind: deny, schedule: '* * * * *', duration: 1h, "
               "applications: ['*'], manualSync: yes please}]",
               "spec.syncWindows[0].manualSync: wrong type: expected boolean"},
           Row{"destinations: [{namespace: x}]",
               "spec.destinations[0]: a destination needs a server or a name"},
           Row{"sourceRepos: 'x'", "spec.sourceRepos: wrong type: expected array"},
           Row{"clusterResourceBlacklist: []",
               "spec.clusterResourceBlacklist: field is not supported by fleetwave"},
           Row{"destination: []", "spec.destination: unknown field \"destination\""},
       }) {
    DecodedAppProject d = Decode(std::string("apiVersion: argoproj.io/v1alpha1\nkind: "
                                             "AppProject\nmetadata: {name: p}\nspec:\n  ") +
                                 row.spec + "\n");
    EXPECT_FALSE(d.project) << row.spec;
    ASSERT_FALSE(d.issues.empty()) << row.spec;
    EXPECT_NE(FormatIssue(d.issues.front()).find(row.issue), std::string::npos)
        << FormatIssue(d.issues.front());
  }
  DecodedAppProject no_name = Decode("apiVersion: argoproj.io/v1alpha1\nkind: AppProject\n");
  ASSERT_FALSE(no_name.issues.empty());
  EXPECT_EQ(no_name.issues.front().path, "metadata.name");
}

Json Spec(const std::string& project, const std::string& repo, const Json& destination) {
  return {{"project", project},
          {"source", {{"repoURL", repo}, {"path", "p"}}},
          {"destination", destination}};
}

TEST(AppProjectTest, RefusesWithArgoCdsMessages) {
  const AppProjects projects = Projects({kProd});
  const std::string repo = "https://git.example.com/app";
  const Json ok_dest = {{"server", "https://prod-1"}, {"namespace", "web-a"}};
  struct Row {
    const char* name;
    Json spec;
    std::string refusal;
  };
  const std::vector<ObjectRef> none;
  for (const Row& row : {
           Row{"permitted", Spec("prod", repo, ok_dest), ""},
           Row{"permitted by cluster name",
               Spec("prod", repo, {{"name", "eu-1"}, {"namespace", "x"}}), ""},
           Row{"unknown project", Spec("staging", repo, ok_dest),
               "Application referencing project staging which does not exist"},
           Row{"default while undefined allows everything",
               Spec("default", "https://anywhere", {{"server", "x"}, {"namespace", "y"}}), ""},
           Row{"empty project reads as default",
               Spec("", "https://anywhere", {{"server", "x"}, {"namespace", "y"}}), ""},
           Row{"repo outside", Spec("prod", "https://github.com/x/y", ok_dest),
               "application repo https://github.com/x/y is not permitted in project 'prod'"},
           Row{"repo denied by !", Spec("prod", "https://git.example.com/forbidden", ok_dest),
               "application repo https://git.example.com/forbidden is not permitted in project "
               "'prod'"},
           Row{"namespace outside",
               Spec("prod", repo, {{"server", "https://prod-1"}, {"namespace", "kube-system"}}),
               "application destination server 'https://prod-1' and namespace 'kube-system' do "
               "not match any of the allowed destinations in project 'prod'"},
           Row{"server outside",
               Spec("prod", repo, {{"server", "https://stage-1"}, {"namespace", "web-a"}}),
               "application destination server 'https://stage-1' and namespace 'web-a' do not "
               "match any of the allowed destinations in project 'prod'"},
           Row{"server denied by !",
               Spec("prod", repo, {{"server", "https://prod-3"}, {"namespace", "web-a"}}),
               "application destination server 'https://prod-3' and namespace 'web-a' do not "
               "match any of the allowed destinations in project 'prod'"},
       }) {
    ProjectCheckInput in;
    in.app = "a";
    in.spec = &row.spec;
    in.objects = &none;
    EXPECT_EQ(ProjectRefusal(&projects, in), row.refusal) << row.name;
  }
  // Without any AppProject nothing is enforced, not even a project's existence.
  ProjectCheckInput in;
  const Json spec = Spec("staging", repo, ok_dest);
  in.spec = &spec;
  EXPECT_EQ(ProjectRefusal(nullptr, in), "");
}

TEST(AppProjectTest, ClusterScopedObjectsMustBeWhitelisted) {
  const AppProjects projects = Projects({kProd});
  const Json spec = Spec("prod", "https://git.example.com/app",
                         {{"server", "https://prod-1"}, {"namespace", "web-a"}});
  ProjectCheckInput in;
  in.spec = &spec;
  std::vector<ObjectRef> objects = {{"apps", "Deployment", "web-a", "web"},
                                    {"", "Namespace", "", "web-a"},
                                    {"rbac.authorization.k8s.io", "ClusterRole", "", "r"}};
  in.objects = &objects;
  EXPECT_EQ(ProjectRefusal(&projects, in), "");
  objects.push_back({"apiextensions.k8s.io", "CustomResourceDefinition", "", "x"});
  EXPECT_EQ(ProjectRefusal(&projects, in),
            "Resource apiextensions.k8s.io:CustomResourceDefinition is not permitted in project "
            "prod.");
  // A defined default project is enforced like any other: no whitelist, no cluster-scoped
  // object.
  const AppProjects with_default = Projects(
      {"apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: default}\nspec:\n"
       "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n"});
  const Json plain = Spec("default", "https://x", {{"server", "s"}, {"namespace", "n"}});
  in.spec = &plain;
  objects = {{"", "Namespace", "", "n"}};
  EXPECT_EQ(ProjectRefusal(&with_default, in),
            "Resource :Namespace is not permitted in project default.");
}

TEST(AppProjectTest, WindowsOfAnAppAreItsProjects) {
  const AppProjects projects = Projects({kProd});
  EXPECT_NE(WindowsOf(&projects, Spec("prod", "r", {})), nullptr);
  EXPECT_EQ(WindowsOf(&projects, Spec("default", "r", {})), nullptr);
  EXPECT_EQ(WindowsOf(nullptr, Spec("prod", "r", {})), nullptr);
  GeneratedApplication app;
  app.name = "web-eu";
  app.cluster = "eu-ctx";
  app.object = {{"spec", Spec("prod", "r", {{"server", "https://eu"}, {"namespace", "web"}})}};
  const WindowTarget t = WindowTargetOf(app);
  EXPECT_EQ(t.app, "web-eu");
  EXPECT_EQ(t.server, "https://eu");
  EXPECT_EQ(t.cluster_name, "eu-ctx");
  EXPECT_EQ(t.namespace_, "web");
}

TEST(AppProjectTest, ValidateDocumentsReadsThemNextToTheSets) {
  const LoadedDocuments docs = LoadYamlDocuments(
      std::string(kProd) +
          "---\napiVersion: argoproj.io/v1beta9\nkind: AppProject\nmetadata: {name: x}\n",
      "dir/projects.yaml");
  ASSERT_TRUE(docs.issues.empty());
  const ValidatedDocuments v = ValidateDocuments(docs.documents, "dir/projects.yaml", {});
  ASSERT_EQ(v.projects.size(), 1u);
  EXPECT_EQ(v.projects[0].name, "prod");
  EXPECT_EQ(v.projects[0].file, "dir/projects.yaml");
  ASSERT_EQ(v.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(v.issues[0]),
            "dir/projects.yaml:19:1: apiVersion: an AppProject is apiVersion argoproj.io/v1alpha1");
}

// syncOverrun decodes (a boolean, else an issue) and is told about as a warning naming the
// field: it has no effect, since fleetwave lets every running sync finish.
TEST(AppProjectDecode, SyncOverrunIsAWarningNamingTheFieldNeverSilentlyIgnored) {
  const DecodedAppProject d = Decode(R"(
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: prod}
spec:
  syncWindows:
  - {kind: deny, schedule: '0 22 * * *', duration: 1h, applications: ['*'], syncOverrun: true}
  - {kind: allow, schedule: '0 9 * * *', duration: 8h, applications: ['*']}
  - {kind: allow, schedule: '0 9 * * *', duration: 8h, applications: ['*'], syncOverrun: false}
  - {kind: deny, schedule: '0 22 * * *', duration: 1h, applications: ['*'], syncOverrun: false}
)");
  ASSERT_TRUE(d.project) << (d.issues.empty() ? "" : FormatIssue(d.issues[0]));
  const Issues w = SyncOverrunWarnings(*d.project);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(FormatIssue(w[0]),
            "projects.yaml:7:90: spec.syncWindows[0].syncOverrun: has no effect in fleetwave: a "
            "sync already running always finishes (retries included), as with syncOverrun: true "
            "on every window");
  EXPECT_EQ(FormatIssue(w[1]),
            "projects.yaml:9:90: spec.syncWindows[2].syncOverrun: false is not honoured by "
            "fleetwave: a sync already running when this allow window ends still finishes "
            "(retries included), where Argo CD would stop it");
  EXPECT_EQ(w[2].path, "spec.syncWindows[3].syncOverrun");
  EXPECT_NE(w[2].message.find("when this deny window starts"), std::string::npos);

  const DecodedAppProject bad = Decode(R"(
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: prod}
spec:
  syncWindows:
  - {kind: deny, schedule: '0 22 * * *', duration: 1h, applications: ['*'], syncOverrun: sure}
)");
  ASSERT_EQ(bad.issues.size(), 1u);
  EXPECT_EQ(bad.issues[0].path, "spec.syncWindows[0].syncOverrun");
}

}  // namespace
}  // namespace fleetwave::engine
