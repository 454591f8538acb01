// What one delete command sends and logs: only what was not asked for already.
#include "engine/deletion/deletion_send.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;

ObjectRef Ref(const std::string& kind, const std::string& name) {
  return {kind == "Namespace" ? "" : "apps", kind, kind == "Namespace" ? "" : "ns", name};
}

V Names(const std::vector<ObjectRef>& refs) {
  V out;
  for (const auto& r : refs) out.push_back(r.KindName());
  return out;
}

TEST(DeletionSend, SendsOnlyWhatWasNotAskedForAndSaysSo) {
  struct Case {
    const char* name;
    std::vector<ObjectRef> delete_now, unmark;
    std::vector<ObjectRefusal> kept;
    std::set<ObjectRef> sent;
    V objects, unmarked;
    std::string log;
    V kept_lines;  // "key | text"
  };
  const ObjectRef a = Ref("Deployment", "a"), b = Ref("Deployment", "b");
  const ObjectRefusal ns{Ref("Namespace", "team"), "Namespace/team kept: no allow-delete"};
  const Case cases[] = {
      {"FirstRoundSendsEveryObject",
       {a, b},
       {},
       {},
       {},
       {"Deployment/a", "Deployment/b"},
       {},
       "appset=s app=x cluster=c0 deleting 2 object(s)",
       {}},
      {"AnObjectAskedForAlreadyIsNotAskedAgain",
       {a, b},
       {},
       {},
       {a},
       {"Deployment/b"},
       {},
       "appset=s app=x cluster=c0 deleting 1 object(s)",
       {}},
      {"NothingNewSendsAndLogsNothing", {a, b}, {}, {ns}, {a, b}, {}, {}, "", {}},
      {"PreserveRemovesTheMarksInstead",
       {},
       {a},
       {},
       {},
       {},
       {"Deployment/a"},
       "appset=s app=x cluster=c0 removing the tracking marks of 1 object(s) "
       "(preserveResourcesOnDeletion)",
       {}},
      {"KeptObjectsAreNamedOnceEach",
       {a},
       {},
       {ns},
       {},
       {"Deployment/a"},
       {},
       "appset=s app=x cluster=c0 deleting 1 object(s)",
       {"kept s/x/Namespace/team | appset=s app=x cluster=c0 Namespace/team kept: no "
        "allow-delete"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AppDeleteCommand command{"x", "c0", {}};
    command.plan.delete_now = c.delete_now;
    command.plan.unmark = c.unmark;
    command.plan.kept = c.kept;
    const DeleteSend send = PlanDeleteSend("s", command, c.sent);
    EXPECT_EQ(Names(send.objects), c.objects);
    EXPECT_EQ(Names(send.unmark), c.unmarked);
    EXPECT_EQ(send.log, c.log);
    V kept;
    for (const auto& k : send.kept) kept.push_back(k.key + " | " + k.text);
    EXPECT_EQ(kept, c.kept_lines);
  }
}

}  // namespace
}  // namespace fleetwave::engine
