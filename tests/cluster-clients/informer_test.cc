// The informer on a fake transport: list then watch, projections, resume after a normal end,
// 410 (ERROR event and HTTP) → relist with a diff, reconnect with backoff.
#include "cluster-clients/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cluster-clients/fake_transport.h"

namespace fleetwave::clients {
namespace {

using testing::FakeTransport;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Obj(const std::string& name, const std::string& rv, int replicas) {
  return Json{{"metadata",
               {{"name", name},
                {"namespace", "shop"},
                {"resourceVersion", rv},
                {"uid", "u-" + name},
                {"generation", 1}}},
              {"spec", {{"replicas", replicas}, {"template", {{"big", std::string(100, 'x')}}}}},
              {"status", {{"readyReplicas", 0}}}}
      .dump();
}

std::string List(const std::string& rv, const std::vector<std::string>& items) {
  std::string s =
      R"({"kind":"DeploymentList","metadata":{"resourceVersion":")" + rv + R"("},"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + "]}";
}

std::string Event(const std::string& type, const std::string& obj) {
  return R"({"type":")" + type + R"(","object":)" + obj + "}\n";
}

class InformerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterConfig config;
    config.name = "c1";
    config.server = "https://c1.example.test";
    ClientOptions o;
    o.seed = 7;
    o.rate_limit = {0, 1};
    client_ = ClusterClient::Create(config, &t_, &exec_, nullptr, o);
    InformerOptions io;
    io.resource = DeploymentsResource();
    io.label_selector = "fleetwave.io/app";
    io.project = ProjectFields({"/spec/replicas", "/status"});
    InformerHandlers h;
    h.on_add = [this](const Projection& p) {
      log_.push_back("add " + p.name + "@" + p.resource_version);
    };
    h.on_update = [this](const Projection& a, const Projection& b) {
      log_.push_back("update " + a.name + "@" + a.resource_version + "->" + b.resource_version);
    };
    h.on_delete = [this](const Projection& p) { log_.push_back("delete " + p.name); };
    h.on_synced = [this] { log_.push_back("synced"); };
    h.on_error = [this](const Result& r) {
      log_.push_back("error " + (r.reason.empty() ? r.message : r.reason));
    };
    informer_ = Informer::Start(client_, io, h, &exec_);
    t_.RunUntilIdle();
  }
  void TearDown() override {
    informer_->Stop();
    t_.RunUntilIdle();
  }
  std::string Url() { return t_.Get(t_.Oldest()).request.url; }
  std::vector<std::string> Names() {
    std::vector<std::string> out;
    for (const auto& p : informer_->Snapshot()) out.push_back(p.name + "@" + p.resource_version);
    return out;
  }
  std::vector<std::string> TakeLog() { return std::exchange(log_, {}); }

  FakeTransport t_;
  InlineExecutor exec_;
  std::shared_ptr<ClusterClient> client_;
  std::shared_ptr<Informer> informer_;
  std::vector<std::string> log_;
};

using Strings = std::vector<std::string>;

TEST_F(InformerTest, ListsThenWatchesIntoProjections) {
  EXPECT_THAT(Url(),
              HasSubstr("/apis/apps/v1/deployments?limit=500&labelSelector=fleetwave.io%2Fapp"));
  t_.Respond(t_.Oldest(), 200, List("10", {Obj("a", "5", 1), Obj("b", "7", 2)}));
  EXPECT_EQ(TakeLog(), (Strings{"add a@5", "add b@7", "synced"}));
  EXPECT_TRUE(informer_->synced());
  EXPECT_THAT(Url(), HasSubstr("watch=1"));
  EXPECT_THAT(Url(), HasSubstr("resourceVersion=10"));
  // Only the chosen fields are kept.
  auto a = informer_->Get("shop", "a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->fields, (Json{{"spec", {{"replicas", 1}}}, {"status", {{"readyReplicas", 0}}}}));
  EXPECT_EQ(a->uid, "u-a");
  EXPECT_EQ(a->generation, 1);

  const RequestId w = t_.Oldest();
  t_.Feed(w, Event("MODIFIED", Obj("a", "11", 3)) + Event("DELETED", Obj("b", "12", 2)) +
                 Event("ADDED", Obj("c", "13", 1)));
  EXPECT_EQ(TakeLog(), (Strings{"update a@5->11", "delete b", "add c@13"}));
  EXPECT_EQ(Names(), (Strings{"a@11", "c@13"}));
  EXPECT_EQ(informer_->Get("shop", "a")->fields["spec"]["replicas"], 3);
}

TEST_F(InformerTest, NormalEndResumesFromTheLastBookmark) {
  t_.Respond(t_.Oldest(), 200, List("10", {Obj("a", "5", 1)}));
  TakeLog();
  const RequestId w = t_.Oldest();
  t_.Feed(w, Event("MODIFIED", Obj("a", "11", 2)));
  t_.Feed(
      w, R"({"type":"BOOKMARK","object":{"kind":"Deployment","metadata":{"resourceVersion":"40"}}})"
         "\n");
  t_.EndStream(w);
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_THAT(Url(), HasSubstr("watch=1"));  // no relist
  EXPECT_THAT(Url(), HasSubstr("resourceVersion=40"));
  EXPECT_EQ(informer_->stats().lists, 1);
}

TEST_F(InformerTest, ExpiredErrorEventRelistsAndDiffs) {
  t_.Respond(t_.Oldest(), 200, List("10", {Obj("a", "5", 1), Obj("b", "7", 1), Obj("c", "8", 1)}));
  TakeLog();
  const RequestId w = t_.Oldest();
  t_.Feed(
      w,
      Event(
          "ERROR",
          R"j({"kind":"Status","status":"Failure","reason":"Expired","message":"too old resource version: 10 (50)","code":410})j"));
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_THAT(Url(), Not(HasSubstr("watch")));  // a list
  // While the watch was gone: a changed, b deleted, c untouched, d created.
  t_.Respond(t_.Oldest(), 200,
             List("60", {Obj("a", "55", 2), Obj("c", "8", 1), Obj("d", "58", 1)}));
  EXPECT_EQ(TakeLog(), (Strings{"delete b", "update a@5->55", "add d@58"}));
  EXPECT_EQ(Names(), (Strings{"a@55", "c@8", "d@58"}));
  EXPECT_THAT(Url(), HasSubstr("resourceVersion=60"));
  EXPECT_EQ(informer_->stats().expired, 1);
  EXPECT_EQ(informer_->stats().lists, 2);
}

TEST_F(InformerTest, ExpiredHttpStatusRelistsToo) {
  t_.Respond(t_.Oldest(), 200, List("10", {}));
  t_.Respond(t_.Oldest(), 410, R"({"kind":"Status","reason":"Expired","code":410})");
  EXPECT_THAT(Url(), Not(HasSubstr("watch")));
  EXPECT_EQ(informer_->stats().expired, 1);
}

TEST_F(InformerTest, BrokenWatchReconnectsWithBackoffFromTheLastVersion) {
  t_.Respond(t_.Oldest(), 200, List("10", {Obj("a", "5", 1)}));
  const RequestId w = t_.Oldest();
  t_.Feed(w, Event("MODIFIED", Obj("a", "12", 2)));
  t_.Fail(w, NetError::kConnection, "Recv failure: Connection reset by peer");
  EXPECT_TRUE(t_.Outstanding().empty());
  ASSERT_TRUE(t_.NextTimerIn().has_value());
  EXPECT_GE(ToMillis(*t_.NextTimerIn()), 500);
  EXPECT_LE(ToMillis(*t_.NextTimerIn()), 750);
  t_.Advance(*t_.NextTimerIn());
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_THAT(Url(), HasSubstr("watch=1"));
  EXPECT_THAT(Url(), HasSubstr("resourceVersion=12"));
  // A second failure in a row waits longer.
  t_.Fail(t_.Oldest(), NetError::kConnectRefused);
  EXPECT_GE(ToMillis(*t_.NextTimerIn()), 1000);
}

TEST_F(InformerTest, FailedListRetriesAndReportsTheError) {
  t_.Respond(t_.Oldest(), 403, R"({"kind":"Status","reason":"Forbidden","code":403})");
  EXPECT_EQ(TakeLog(), (Strings{"error Forbidden"}));
  EXPECT_FALSE(informer_->synced());
  t_.Advance(seconds(1));
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_THAT(Url(), Not(HasSubstr("watch")));
}

// Objects of unexpected shapes from the cluster are left out of the cache with an error naming
// the object and the field; the informer goes on. Each threw on the loop thread before.
TEST_F(InformerTest, MalformedObjectsAreSkippedAndReported) {
  const std::string good = Obj("a", "5", 1);
  const std::string labels_a_list =
      R"({"metadata":{"name":"l","namespace":"shop","resourceVersion":"6","labels":["x"]}})";
  t_.Respond(t_.Oldest(), 200,
             List("10", {R"({"metadata":"web"})", good,
                         R"({"metadata":{"name":"b","namespace":"shop","resourceVersion":7}})",
                         R"("a string")", labels_a_list,
                         R"({"metadata":{"name":"g","generation":"1"}})"}));
  EXPECT_EQ(TakeLog(),
            (Strings{"error list item 0: deployments: metadata is a string, expected an object; "
                     "skipped",
                     "error list item 2: deployments shop/b: metadata.resourceVersion is a number, "
                     "expected a string; skipped",
                     "error list item 3: deployments: not an object (a string); skipped",
                     "error list item 5: deployments /g: metadata.generation is a string, "
                     "expected an integer; skipped",
                     "add a@5", "add l@6", "synced"}));
  EXPECT_EQ(Names(), (Strings{"a@5", "l@6"}));
  // Watch events of the wrong shape are skipped the same way; the watch stays open.
  const RequestId w = t_.Oldest();
  t_.Feed(w, Event("MODIFIED", R"({"metadata":{"name":["a"],"namespace":"shop"}})") +
                 Event("ADDED", "17") +
                 Event("BOOKMARK", R"({"metadata":{"resourceVersion":{"v":1}}})") +
                 Event("MODIFIED", Obj("a", "12", 2)));
  EXPECT_EQ(TakeLog(),
            (Strings{"error watch MODIFIED event: deployments: metadata.name is an array, "
                     "expected a string; skipped",
                     "error watch ADDED event: deployments: not an object (a number); skipped",
                     "error watch deployments: BOOKMARK event: metadata.resourceVersion is an "
                     "object, expected a string; skipped",
                     "update a@5->12"}));
  EXPECT_EQ(t_.Outstanding(), std::vector<RequestId>{w});
  EXPECT_EQ(informer_->resource_version(), "12");
}

TEST_F(InformerTest, ErrorEventsThatAreNotAStatusRestartTheWatch) {
  const struct {
    const char* name;
    std::string object;
    const char* want;
  } cases[] = {
      {"a_string", R"("boom")", "ERROR event whose object is not a Status: not an object"},
      {"a_list", "[410]", "not an object (an array)"},
      {"code_a_string", R"({"kind":"Status","code":"410"})",
       "code is a string, expected an integer"},
      {"another_kind", R"({"kind":"Deployment","code":410})", "kind is \"Deployment\""},
  };
  t_.Respond(t_.Oldest(), 200, List("10", {Obj("a", "5", 1)}));
  TakeLog();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    t_.Feed(t_.Oldest(), Event("ERROR", c.object));
    const auto log = TakeLog();
    ASSERT_EQ(log.size(), 1u);
    EXPECT_THAT(log[0], HasSubstr("watch deployments: "));
    EXPECT_THAT(log[0], HasSubstr(c.want));
    EXPECT_TRUE(t_.Outstanding().empty());  // the watch is closed ...
    t_.Advance(*t_.NextTimerIn());          // ... and re-opened after a backoff
    ASSERT_EQ(t_.Outstanding().size(), 1u);
    EXPECT_THAT(Url(), HasSubstr("watch=1"));
    EXPECT_THAT(Url(), HasSubstr("resourceVersion=10"));
  }
  EXPECT_EQ(informer_->stats().lists, 1);  // none of them is a 410: no relist
  t_.Feed(t_.Oldest(), Event("ADDED", Obj("b", "11", 1)));
  EXPECT_EQ(TakeLog(), (Strings{"add b@11"}));
}

TEST_F(InformerTest, ThrowingProjectorSkipsOnlyThatObject) {
  InformerOptions io;
  io.resource = DeploymentsResource();
  io.project = [](const Json& object) {
    // A caller's projector that trusts the shape: at() throws on the odd object.
    return Json{{"replicas", object.at("spec").at("replicas")}};
  };
  std::vector<std::string> log;
  InformerHandlers h;
  h.on_add = [&](const Projection& p) { log.push_back("add " + p.name); };
  h.on_error = [&](const Result& r) { log.push_back(r.message); };
  auto inf = Informer::Start(client_, io, h, &exec_);
  t_.RunUntilIdle();
  ASSERT_EQ(t_.Outstanding().size(), 2u);  // the fixture's list, then this one's
  t_.Respond(t_.Outstanding().back(), 200,
             List("3", {R"({"metadata":{"name":"odd","namespace":"shop"}})", Obj("a", "2", 4)}));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_THAT(log[0], HasSubstr("list item 0: deployments shop/odd: the projector failed: "));
  EXPECT_THAT(log[0], HasSubstr("key 'spec' not found"));
  EXPECT_EQ(log[1], "add a");
  EXPECT_EQ(inf->Get("shop", "a")->fields["replicas"], 4);
  inf->Stop();
  t_.RunUntilIdle();
}

// A typed projector's value is made once per object version and shared, not copied, by the
// cache and the callbacks (the cluster actor's live objects travel this way, without JSON).
TEST_F(InformerTest, TypedProjectionIsMadeOnceAndShared) {
  struct Replicas {
    int64_t value = 0;
  };
  InformerOptions io;
  io.resource = DeploymentsResource();
  int projected = 0;
  io.project_typed = [&projected](const Json& object) {
    ++projected;
    return std::any(Replicas{object["spec"]["replicas"].get<int64_t>()});
  };
  std::vector<std::shared_ptr<const std::any>> seen;
  InformerHandlers h;
  h.on_add = [&](const Projection& p) { seen.push_back(p.typed); };
  h.on_update = [&](const Projection& before, const Projection& after) {
    seen.push_back(before.typed);
    seen.push_back(after.typed);
  };
  auto inf = Informer::Start(client_, io, h, &exec_);
  t_.RunUntilIdle();
  ASSERT_EQ(t_.Outstanding().size(), 2u);  // the fixture's list, then this one's
  t_.Respond(t_.Outstanding().back(), 200, List("3", {Obj("a", "2", 4)}));
  t_.Feed(t_.Outstanding().back(), Event("MODIFIED", Obj("a", "5", 6)));
  ASSERT_EQ(seen.size(), 3u);   // add, then update (before, after)
  EXPECT_EQ(projected, 2);      // once per version, however many holders
  EXPECT_EQ(seen[0], seen[1]);  // the added value is the update's "before", not a copy
  ASSERT_NE(seen[2], nullptr);
  EXPECT_EQ(std::any_cast<Replicas>(seen[2].get())->value, 6);
  EXPECT_EQ(inf->Get("shop", "a")->typed, seen[2]);
  EXPECT_EQ(inf->Get("shop", "a")->fields, Json::object());  // no JSON projector: no fields
  inf->Stop();
  t_.RunUntilIdle();
}

TEST_F(InformerTest, StopCancelsEverything) {
  t_.Respond(t_.Oldest(), 200, List("10", {}));
  informer_->Stop();
  t_.RunUntilIdle();
  EXPECT_TRUE(t_.Outstanding().empty());
  TakeLog();
  t_.Advance(seconds(3600));
  EXPECT_TRUE(log_.empty());
}

}  // namespace
}  // namespace fleetwave::clients
