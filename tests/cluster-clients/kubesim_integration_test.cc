// Integration tests against kubesim over TLS on a free port: every verb on each served kind,
// discovery, pagination, the informer's cache against a fresh list, 401 with a wrong token,
// TLS failure with a wrong CA, connection refused. Waits are conditions with deadlines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/informer.h"
#include "tests/cluster-clients/await_callback.h"
#include "tests/cluster-clients/kubesim_process.h"
#include "tests/test_paths.h"

namespace fleetwave::clients {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kDeadline = std::chrono::seconds(20);

using testing::Await;

// Polls `cond` until it holds or the deadline passes (for state that converges over
// kubesim's controller ticks).
template <typename Cond>
bool Eventually(Cond cond, std::chrono::seconds within = kDeadline) {
  const auto end = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling interval, not sync
  }
  return cond();
}

class KubesimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = new testing::KubesimProcess();
    std::string error;
    if (!sim_->Start(3, {}, &error)) {
      skip_reason_ = error;
      return;
    }
    KubeconfigSet set = LoadKubeconfigs({sim_->kubeconfig()});
    if (!set.errors.empty() || set.clusters.size() != 3) {
      skip_reason_ = "kubesim kubeconfig did not load";
      return;
    }
    configs_ = new std::vector<ClusterConfig>(set.clusters);
    transport_ = new CurlTransport();
    executor_ = new SerialExecutor();
  }
  static void TearDownTestSuite() {
    if (executor_) executor_->Shutdown();
    delete transport_;
    delete executor_;
    delete configs_;
    delete sim_;
    executor_ = nullptr;
    transport_ = nullptr;
  }
  void SetUp() override {
    if (!skip_reason_.empty()) FAIL() << skip_reason_;
  }
  static std::shared_ptr<ClusterClient> Client(ClusterConfig c, ClientOptions o = {}) {
    o.rate_limit = {100, 200};
    return ClusterClient::Create(std::move(c), transport_, executor_, nullptr, o);
  }
  static ClusterConfig Config(int i) { return (*configs_)[i]; }

  static Result Apply(ClusterClient& c, const Json& obj, ApplyOptions o = {}) {
    return Await<Result>([&](auto done) { c.Apply(obj, o, done); });
  }
  static Result Get(ClusterClient& c, const ResourceRef& r, const std::string& ns,
                    const std::string& name) {
    return Await<Result>([&](auto done) { c.Get(r, ns, name, done); });
  }
  static ListResult List(ClusterClient& c, const ResourceRef& r, ListOptions o) {
    return Await<ListResult>([&](auto done) { c.List(r, o, done); });
  }

  static inline testing::KubesimProcess* sim_ = nullptr;
  static inline std::string skip_reason_;
  static inline std::vector<ClusterConfig>* configs_ = nullptr;
  static inline CurlTransport* transport_ = nullptr;
  static inline SerialExecutor* executor_ = nullptr;
};

Json PodTemplate(const std::string& app) {
  return {{"metadata", {{"labels", {{"app", app}}}}},
          {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "nginx:1.25"}}})}}}};
}

struct KindCase {
  const char* name;
  ResourceRef ref;
  Json body;  // without metadata
};

std::vector<KindCase> Kinds() {
  const Json selector = {{"matchLabels", {{"app", "it"}}}};
  return {
      {"Namespace", NamespacesResource(), Json::object()},
      {"ConfigMap", {"", "v1", "configmaps", "ConfigMap", true}, {{"data", {{"k", "v"}}}}},
      {"Secret",
       {"", "v1", "secrets", "Secret", true},
       {{"type", "Opaque"}, {"data", {{"k", "dg=="}}}}},
      {"Service",
       {"", "v1", "services", "Service", true},
       {{"spec", {{"selector", {{"app", "it"}}}, {"ports", Json::array({{{"port", 80}}})}}}}},
      {"ServiceAccount", {"", "v1", "serviceaccounts", "ServiceAccount", true}, Json::object()},
      {"Deployment",
       DeploymentsResource(),
       {{"spec", {{"replicas", 1}, {"selector", selector}, {"template", PodTemplate("it")}}}}},
      {"StatefulSet",
       StatefulSetsResource(),
       {{"spec",
         {{"replicas", 1},
          {"serviceName", "it"},
          {"selector", selector},
          {"template", PodTemplate("it")}}}}},
      {"DaemonSet",
       DaemonSetsResource(),
       {{"spec", {{"selector", selector}, {"template", PodTemplate("it")}}}}},
      {"CloneSetV1alpha1",
       CloneSetsResource(),
       {{"spec", {{"replicas", 1}, {"selector", selector}, {"template", PodTemplate("it")}}}}},
      {"CloneSetV1beta1",
       {"apps.kruise.io", "v1beta1", "clonesets", "CloneSet", true},
       {{"spec", {{"replicas", 1}, {"selector", selector}, {"template", PodTemplate("it")}}}}},
  };
}

void PrintTo(const KindCase& k, std::ostream* os) { *os << k.name; }

class VerbsTest : public KubesimTest, public ::testing::WithParamInterface<KindCase> {};

TEST_P(VerbsTest, EveryVerb) {
  const KindCase& k = GetParam();
  auto c = Client(Config(0));
  std::string lower = k.name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
  const std::string ns = k.ref.namespaced ? "verbs" : "";
  const std::string name = "it-" + lower;
  if (k.ref.namespaced) {
    Result r =
        Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "verbs"}}}});
    ASSERT_TRUE(r.ok()) << r.ToString();
  }
  Json obj = k.body;
  obj["apiVersion"] = k.ref.ApiVersion();
  obj["kind"] = k.ref.kind;
  obj["metadata"] = {
      {"name", name}, {"labels", {{"it", lower}}}, {"annotations", {{"owner", "fleetwave-it"}}}};
  if (k.ref.namespaced) obj["metadata"]["namespace"] = ns;

  // apply (create)
  Result applied = Apply(*c, obj, {"fleetwave-it", false});
  ASSERT_TRUE(applied.ok()) << applied.ToString();
  const std::string uid = applied.object["metadata"].value("uid", "");
  ASSERT_FALSE(uid.empty());
  // get
  Result got = Get(*c, k.ref, ns, name);
  ASSERT_TRUE(got.ok()) << got.ToString();
  EXPECT_EQ(got.object["metadata"]["uid"], uid);
  // list with a selector
  ListOptions lo;
  lo.ns = ns;
  lo.label_selector = "it=" + lower;
  ListResult listed = List(*c, k.ref, lo);
  ASSERT_TRUE(listed.result.ok()) << listed.result.ToString();
  ASSERT_EQ(listed.items.size(), 1u);
  EXPECT_FALSE(listed.resource_version.empty());

  // watch from the list's version, then merge-patch and see the change
  std::mutex mu;
  std::condition_variable cv;
  std::vector<WatchEvent> events;
  WatchOptions wo;
  wo.ns = ns;
  wo.label_selector = lo.label_selector;
  wo.resource_version = listed.resource_version;
  auto watch = c->Watch(
      k.ref, wo,
      [&](WatchEvent e) {
        std::lock_guard<std::mutex> lock(mu);
        events.push_back(std::move(e));
        cv.notify_all();
      },
      [](Result) {});
  Result patched = Await<Result>([&](auto done) {
    c->MergePatch(k.ref, ns, name, {{"metadata", {{"annotations", {{"patched", "yes"}}}}}}, done);
  });
  ASSERT_TRUE(patched.ok()) << patched.ToString();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kDeadline, [&] {
      for (const auto& e : events)
        if (e.type == "MODIFIED" && e.object["metadata"].contains("annotations") &&
            e.object["metadata"]["annotations"].value("patched", "") == "yes")
          return true;
      return false;
    }));
  }

  // server-side apply conflict: another manager changing fleetwave-it's annotation
  Json other = {{"apiVersion", obj["apiVersion"]},
                {"kind", obj["kind"]},
                {"metadata", {{"name", name}, {"annotations", {{"owner", "someone-else"}}}}}};
  if (k.ref.namespaced) other["metadata"]["namespace"] = ns;
  Result conflict = Apply(*c, other, {"someone-else", false});
  EXPECT_EQ(conflict.outcome, Outcome::kConflict) << conflict.ToString();
  EXPECT_EQ(conflict.reason, "Conflict");
  Result forced = Apply(*c, other, {"someone-else", true});
  EXPECT_TRUE(forced.ok()) << forced.ToString();

  // delete: a wrong precondition is a conflict; the right one deletes
  DeleteOptions wrong;
  wrong.precondition_uid = "not-" + uid;
  Result refused = Await<Result>([&](auto done) { c->Delete(k.ref, ns, name, wrong, done); });
  EXPECT_EQ(refused.outcome, Outcome::kConflict) << refused.ToString();
  DeleteOptions right;
  right.precondition_uid = uid;
  right.propagation_policy = "Background";
  Result deleted = Await<Result>([&](auto done) { c->Delete(k.ref, ns, name, right, done); });
  EXPECT_TRUE(deleted.ok()) << deleted.ToString();
  EXPECT_TRUE(Eventually([&] { return Get(*c, k.ref, ns, name).outcome == Outcome::kNotFound; }));
  {
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, kDeadline, [&] {
      for (const auto& e : events)
        if (e.type == "DELETED") return true;
      return false;
    }));
  }
  watch->Cancel();
  // get of something absent
  EXPECT_EQ(Get(*c, k.ref, ns, "absent").outcome, Outcome::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Kinds, VerbsTest, ::testing::ValuesIn(Kinds()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(KubesimTest, ReadOnlyKindsListAndWatch) {
  auto c = Client(Config(1));
  for (const ResourceRef& r : {ResourceRef{"", "v1", "events", "Event", true},
                               ResourceRef{"apps", "v1", "replicasets", "ReplicaSet", true}}) {
    SCOPED_TRACE(r.resource);
    ListResult l = List(*c, r, {});
    ASSERT_TRUE(l.result.ok()) << l.result.ToString();
    WatchOptions wo;
    wo.resource_version = l.resource_version;
    wo.timeout_seconds = 1;
    Result end = Await<Result>([&](auto done) {
      auto h = c->Watch(
          r, wo, [](WatchEvent) {}, done);
      (void)h;
    });
    EXPECT_TRUE(end.ok()) << end.ToString();  // the server ended it at timeoutSeconds
  }
}

TEST_F(KubesimTest, DiscoveryAndServerVersion) {
  auto c = Client(Config(1));
  auto [r, ref] = Await<std::pair<Result, ResourceRef>>([&](auto done) {
    c->Resolve("apps.kruise.io/v1beta1", "CloneSet", [done](Result r, ResourceRef ref) {
      done({r, ref});
    });
  });
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(ref.resource, "clonesets");
  EXPECT_TRUE(ref.namespaced);
  auto [r2, ns] = Await<std::pair<Result, ResourceRef>>([&](auto done) {
    c->Resolve("v1", "Namespace", [done](Result r, ResourceRef ref) { done({r, ref}); });
  });
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(ns.namespaced);
  Result v = Await<Result>([&](auto done) { c->ServerVersion(done); });
  ASSERT_TRUE(v.ok()) << v.ToString();
  EXPECT_TRUE(v.object.contains("gitVersion"));
}

TEST_F(KubesimTest, ListPaginates) {
  auto c = Client(Config(2));
  ASSERT_TRUE(
      Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "pages"}}}})
          .ok());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(
        Apply(*c, {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", "cm-" + std::to_string(i)}, {"namespace", "pages"}}}})
            .ok());
  ListOptions lo;
  lo.ns = "pages";
  lo.limit = 2;
  ListResult l = List(*c, {"", "v1", "configmaps", "ConfigMap", true}, lo);
  ASSERT_TRUE(l.result.ok()) << l.result.ToString();
  EXPECT_EQ(l.items.size(), 5u);
  EXPECT_EQ(l.pages, 3);
}

TEST_F(KubesimTest, WrongTokenIsUnauthorizedAndNotLogged) {
  ClusterConfig cfg = Config(0);
  cfg.token = "wrong-token-value";
  auto c = Client(cfg);
  Result r = Get(*c, NamespacesResource(), "", "default");
  EXPECT_EQ(r.outcome, Outcome::kPermanent);
  EXPECT_EQ(r.problem, Problem::kUnauthorized);
  EXPECT_EQ(r.http_status, 401);
  EXPECT_EQ(r.reason, "Unauthorized");
  EXPECT_THAT(r.ToString(), Not(HasSubstr("wrong-token-value")));
  EXPECT_EQ(c->requests_sent(), 1);  // a static token is not retried
}

TEST_F(KubesimTest, WrongCaIsATlsFailure) {
  ClusterConfig cfg = Config(0);
  std::ifstream f(::fleetwave::test_paths::TestdataDir() + "/kubeconfig/ca.crt");
  cfg.ca_pem.assign(std::istreambuf_iterator<char>(f), {});
  auto c = Client(cfg);
  Result r = Get(*c, NamespacesResource(), "", "default");
  EXPECT_EQ(r.outcome, Outcome::kPermanent);
  EXPECT_EQ(r.problem, Problem::kTls);
  EXPECT_THAT(r.message, HasSubstr("TLS"));
  EXPECT_EQ(c->requests_sent(), 1);
}

TEST_F(KubesimTest, ConnectionRefusedIsTransient) {
  ClusterConfig cfg = Config(0);
  cfg.server = "https://127.0.0.1:1";
  ClientOptions o;
  o.max_attempts = 1;
  auto c = Client(cfg, o);
  Result r = Get(*c, NamespacesResource(), "", "default");
  EXPECT_EQ(r.outcome, Outcome::kTransient);
  EXPECT_EQ(r.problem, Problem::kConnectionRefused);
}

// The leadership write fence (issue 28) is asked again by the transport once the connection
// is up, right before the first byte: a write that passed the client's check while the term
// was valid is not sent when the term ends on the way to the socket (a process frozen in a
// new connection's handshake, or between loop turns, past its lease, then thawed). Here the
// fence ends right after the client's own check; kubesim must never see the write.
TEST_F(KubesimTest, AWriteWhoseFenceEndsBeforeTheTransportSendsItIsNotSent) {
  std::atomic<int> asked{0};
  ClientOptions o;
  o.write_refusal = [&asked]() -> std::string {
    return ++asked == 1 ? "" : "this instance no longer leads (its term 7 ended)";
  };
  auto fenced = Client(Config(1), o);
  const ResourceRef configmaps{"", "v1", "configmaps", "ConfigMap", true};
  const Json cm = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", "late-write"}, {"namespace", "default"}}},
                   {"data", {{"k", "v"}}}};
  Result r = Apply(*fenced, cm);
  EXPECT_EQ(r.outcome, Outcome::kPermanent) << r.ToString();
  EXPECT_EQ(r.problem, Problem::kRequest) << r.ToString();
  EXPECT_THAT(r.message, HasSubstr("on cluster " + Config(1).name +
                                   " not sent: this instance no longer leads (its term 7 ended)"));
  EXPECT_EQ(asked.load(), 2);  // the client's check, then the transport's
  auto reader = Client(Config(1));
  EXPECT_EQ(Get(*reader, configmaps, "default", "late-write").outcome, Outcome::kNotFound);
}

TEST_F(KubesimTest, InformerCacheEqualsAFreshList) {
  auto c = Client(Config(2));
  ASSERT_TRUE(
      Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "inf"}}}})
          .ok());
  std::mutex mu;
  std::map<std::string, long long> last_rv;
  bool rv_went_back = false;
  auto seen = [&](const Projection& p) {
    std::lock_guard<std::mutex> lock(mu);
    const long long rv = std::atoll(p.resource_version.c_str());
    if (rv < last_rv[p.name]) rv_went_back = true;
    last_rv[p.name] = rv;
  };
  InformerOptions io;
  io.resource = DeploymentsResource();
  io.ns = "inf";
  io.label_selector = "tier=web";
  io.project =
      ProjectFields({"/spec/replicas", "/status/observedGeneration", "/status/availableReplicas"});
  InformerHandlers h;
  h.on_add = seen;
  h.on_update = [&](const Projection&, const Projection& p) { seen(p); };
  auto inf = Informer::Start(c, io, h, executor_);
  ASSERT_TRUE(Eventually([&] { return inf->synced(); }));
  for (int i = 0; i < 3; ++i) {
    Json d = {{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata",
               {{"name", "web-" + std::to_string(i)},
                {"namespace", "inf"},
                {"labels", {{"tier", "web"}}}}},
              {"spec",
               {{"replicas", 2},
                {"selector", {{"matchLabels", {{"app", "w"}}}}},
                {"template", PodTemplate("w")}}}};
    ASSERT_TRUE(Apply(*c, d).ok());
  }
  // Unselected objects stay out of the cache.
  ASSERT_TRUE(Apply(*c, {{"apiVersion", "apps/v1"},
                         {"kind", "Deployment"},
                         {"metadata", {{"name", "other"}, {"namespace", "inf"}}},
                         {"spec",
                          {{"replicas", 1},
                           {"selector", {{"matchLabels", {{"app", "o"}}}}},
                           {"template", PodTemplate("o")}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return inf->Snapshot().size() == 3; })) << inf->Snapshot().size();
  // An update reaches the projection.
  ASSERT_TRUE(
      Await<Result>([&](auto done) {
        c->MergePatch(DeploymentsResource(), "inf", "web-0", {{"spec", {{"replicas", 5}}}}, done);
      }).ok());
  ASSERT_TRUE(Eventually([&] {
    auto p = inf->Get("inf", "web-0");
    return p && p->fields.value("/spec/replicas"_json_pointer, 0) == 5;
  }));
  ASSERT_TRUE(Await<Result>([&](auto done) {
                c->Delete(DeploymentsResource(), "inf", "web-1", {}, done);
              }).ok());
  // The cache converges to exactly what a fresh list says (names and resourceVersions).
  EXPECT_TRUE(Eventually([&] {
    ListOptions lo;
    lo.ns = "inf";
    lo.label_selector = "tier=web";
    ListResult l = List(*c, DeploymentsResource(), lo);
    std::map<std::string, std::string> fresh, cached;
    for (const auto& item : l.items)
      fresh[item["metadata"]["name"]] = item["metadata"]["resourceVersion"];
    for (const auto& p : inf->Snapshot()) cached[p.name] = p.resource_version;
    return l.result.ok() && fresh == cached && fresh.size() == 2;
  }));
  inf->Stop();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_FALSE(rv_went_back);
  EXPECT_FALSE(last_rv.count("other"));
}

}  // namespace
}  // namespace fleetwave::clients
