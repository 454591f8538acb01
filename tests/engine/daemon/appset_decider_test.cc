// RollingSyncDecider against its oracle, ReconcileAppSet (issue 25): a seeded random fleet of
// RollingSync apps lives through the events a daemon sees — syncs finishing, health flaps,
// clusters going away and coming back, drift made by someone else, clusters observed late, new
// commits (the daemon decides those from scratch and seeds a new decider), time passing, and
// (issue 29) steps failing under onFailure: Rollback or an operator's rollback, whose syncs
// back run, fail and retry as any other — and
// after every event the decider's decision must equal a from-scratch reconcile's on the same
// inputs with the previous decision as the stored state: the set's status, the syncs it starts
// (ids included), the specs it writes, the attempts due, the wake-up, the log lines and every
// Application but its reconciledAt. DecideChecked, the daemon's own check, must agree throughout.
#include "engine/rollingsync/appset_decider.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "engine/operator_command.h"
#include "engine/rollingsync/max_update.h"
#include "engine/rollingsync/rollback.h"
#include "tests/engine/daemon/daemon_fixture.h"
#include "tests/engine/daemon/decider_refresh.h"

namespace fleetwave::engine {
namespace {

using namespace daemon_testing;

class DeciderWorld {
 public:
  explicit DeciderWorld(uint64_t seed) : rng_(seed), now_(kT0) {
    std::vector<RolloutStep> steps;
    // Half the sets roll back a failed step (issue 29): every step has a budget and
    // onFailure: Rollback, and the fleet starts out running r1, so the first commit has earlier
    // healthy revisions to return to.
    const bool rolls_back = Pick(0, 1) == 0;
    const int step_count = Pick(1, 3);
    for (int s = 0; s < step_count; ++s) {
      std::optional<IntOrString> max_update;
      switch (Pick(0, 4)) {
        case 0:
          max_update = Int(1);
          break;
        case 1:
          max_update = Int(2);
          break;
        case 2:
          max_update = Str("50%");
          break;
        default:
          break;
      }
      steps.push_back(EnvStep("e" + std::to_string(s), max_update));
      // Issue 29: a failure budget and a soak, so halts and the soak's wake-up are compared.
      if (rolls_back || Pick(0, 2) == 0) steps.back().max_failures = Int(Pick(0, 1));
      if (rolls_back) steps.back().on_failure = RolloutStep::OnFailure::kRollback;
      if (Pick(0, 2) == 0) steps.back().min_success_seconds = Pick(1, 5);
    }
    set_ = std::make_shared<ApplicationSet>(RollingSet(std::move(steps)));
    if (Pick(0, 2) == 0) {
      // selfHeal in the template: drift is synced again in step order.
      set_->template_ = {{"spec", {{"syncPolicy", {{"automated", {{"selfHeal", true}}}}}}}};
    }
    const int apps = Pick(2, 9);
    const int clusters = Pick(1, 4);
    for (int i = 0; i < apps; ++i) {
      FakeApp a = App("app-" + std::to_string(10 + i), "e" + std::to_string(Pick(0, step_count)),
                      "c" + std::to_string(Pick(0, clusters - 1)));
      a.observed = Pick(0, 3) != 0;
      if (Pick(0, 3) == 0) a.spec = Spec({{"automated", {{"prune", true}}}});
      if (rolls_back) a.live_image = a.image;
      fleet_.push_back(a);
    }
    oracle_ = std::make_unique<FakeStore>(*set_);
    Commit(1);
  }

  // One event and the decision after it on both sides; the first difference, or "".
  std::string Step() {
    // Mostly forward; now and then the clock steps back (NTP), which the decider must follow
    // as a decision from scratch does.
    now_ += std::chrono::seconds(Pick(0, 9) == 0 ? -2 : Pick(0, 3));
    const int kind = Pick(0, 9);
    std::set<std::string> changed;
    if (kind <= 2) {
      // A running sync finishes (the actor's attempt), and its cluster shows the new objects.
      std::vector<std::string> running;
      for (const auto& [name, s] : oracle_->apps) {
        if (s.operation && s.operation->phase == OperationPhase::kRunning) running.push_back(name);
      }
      if (running.empty()) return Decide({});
      const std::string app = running[Pick(0, static_cast<int>(running.size()) - 1)];
      if (Pick(0, 2) == 0) {
        // The attempt fails: a retry is due after its backoff (time moves on to it later).
        oracle_->FailAttempt(app, now_);
        decider_->SetOperation(app, oracle_->apps[app].operation);
        return Decide({app});
      }
      oracle_->Succeed(app, now_);
      decider_->SetOperation(app, oracle_->apps[app].operation);
      FakeApp& a = Find(app);
      // A rollback's sync back applies the content of the revision it returns to ("rN" holds
      // "ui:N"); every other sync the commit's.
      const OperationRecord& op = *oracle_->apps[app].operation;
      a.live_image = IsRollbackOperation(op.operation) ? ImageAt(op.revisions) : a.image;
      a.live_health = Pick(0, 2) == 0 ? HealthCode::kProgressing : HealthCode::kHealthy;
      changed.insert(app);
    } else if (kind <= 4) {
      FakeApp& a = fleet_[Pick(0, static_cast<int>(fleet_.size()) - 1)];
      if (!a.live_image.empty()) {
        const HealthCode codes[] = {HealthCode::kHealthy, HealthCode::kProgressing,
                                    HealthCode::kDegraded};
        a.live_health = codes[Pick(0, 2)];
        changed.insert(a.name);
      }
    } else if (kind == 5) {
      // A cluster goes away or comes back (every app on it), or is observed for the first time.
      const std::string cluster = fleet_[Pick(0, static_cast<int>(fleet_.size()) - 1)].cluster;
      const bool flip = Pick(0, 1) == 0;
      for (auto& a : fleet_) {
        if (a.cluster != cluster) continue;
        if (flip) a.reachable = !a.reachable;
        a.observed = true;
        changed.insert(a.name);
      }
    } else if (kind == 6) {
      // Someone else changes what runs (drift), or deletes it.
      FakeApp& a = fleet_[Pick(0, static_cast<int>(fleet_.size()) - 1)];
      if (!a.live_image.empty()) {
        a.live_image = Pick(0, 1) == 0 ? "ui:hand-edited" : a.image;
        changed.insert(a.name);
      }
    } else if (kind == 7) {
      // A new commit: the daemon decides from scratch and seeds a new decider. Or the
      // repository cannot be fetched (the set's ErrorOccurred condition, every pin kept) until
      // a later poll fetches a commit again.
      if (Pick(0, 3) == 0) {
        const Error failed = PermanentError("https://git.example.com/org/repo",
                                            "cannot fetch: authentication failed");
        for (auto& a : fleet_) {
          a.source_error = failed.ToString();
          a.repository_errors = {failed};
        }
        return Commit(0);
      }
      ++revision_;
      for (auto& a : fleet_) {
        a.source_error.reset();
        a.repository_errors.clear();
        if (Pick(0, 2) == 0) continue;  // this app's content did not change
        a.revision = "r" + std::to_string(revision_);
        a.image = "ui:" + std::to_string(revision_);
      }
      return Commit(0);
    } else if (kind == 8) {
      if (Pick(0, 3) == 0) {
        // An operator's `fleetwave rollback` (issue 29): the appset actor stores the request
        // and decides from scratch with a new decider, as after every rollout command.
        // Half of them with --to: every app the rollout synced goes to one earlier revision.
        RolloutState state = oracle_->status.rollout;
        const std::string to = Pick(0, 1) == 0 ? "" : "r" + std::to_string(Pick(1, revision_));
        const CommandAnswer answer =
            ApplyRolloutCommand(state, RolloutCommand::kRollback, kSet, "", to, now_, "alice");
        if (answer.outcome == CommandOutcome::kAccepted) {
          ++operator_rollbacks_;
          oracle_->status.rollout = std::move(state);
          oracle_->status.has_rollout = true;
          return Commit(0);
        }
      }
      // A resync: the daemon decides checked against a from-scratch reconcile on its state.
      return Decide({}, true);
    }
    // kind 9: time passes only.
    return Decide(changed);
  }

  int promotions() const { return promotions_; }
  int patched_decisions() const { return patched_decisions_; }
  int starts() const { return starts_; }
  // Syncs back the decider started (issue 29), as the oracle did.
  int rollback_starts() const { return rollback_starts_; }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  static std::string ImageAt(const std::vector<std::string>& revisions) {
    if (revisions.size() != 1 || revisions[0].rfind('r', 0) != 0) {
      throw std::logic_error("not a revision of this fleet");
    }
    return "ui:" + revisions[0].substr(1);
  }

  FakeApp& Find(const std::string& name) {
    for (auto& a : fleet_) {
      if (a.name == name) return a;
    }
    throw std::logic_error("no app " + name);
  }

  std::vector<FakeApp> Sorted() const {
    std::vector<FakeApp> out = fleet_;
    std::sort(out.begin(), out.end(),
              [](const FakeApp& a, const FakeApp& b) { return a.name < b.name; });
    return out;
  }

  // What the from-scratch oracle decides on: the store's state and the fleet as it is now.
  AppSetReconcileInput OracleInput() const {
    AppSetReconcileInput in;
    in.appset = set_.get();
    in.stored = oracle_->status;
    for (const auto& a : Sorted()) in.apps.push_back(Observe(a));
    in.stored_apps = oracle_->apps;
    in.automated_warned = true;
    in.now = now_;
    return in;
  }

  // `decided`: a decision the decider took too (its starts are compared with these).
  void Count(const AppSetReconcileResult& r, bool decided) {
    starts_ += static_cast<int>(r.starts.size());
    for (const auto& s : r.starts) {
      if (decided && s.trigger == SyncStartTrigger::kRollback) ++rollback_starts_;
    }
  }

  // The rules of a rollback's syncs back (issue 29) that agreement alone does not show, or "":
  // each one is started once per app and rollback, on a reachable cluster, at the app's
  // rollback target, with no operation of the app running, and only when every later step's
  // apps are done (last step first); at most a step's maxUpdate apps sync back at once; no
  // other sync starts while a rollback holds the revision.
  std::string RollbackRulesBroken(const AppSetReconcileResult& r,
                                  const std::map<std::string, StoredApp>& before) {
    const RolloutState& rollout = oracle_->status.rollout;
    if (rollout.rollback) {
      // Within each step at most its maxUpdate apps sync back at once (a manual gate counts
      // as 1).
      std::map<int, std::pair<long long, long long>> per_step;  // step -> syncing, apps
      for (const RollbackApp& a : rollout.rollback->apps) {
        auto& [syncing, apps] = per_step[a.step];
        ++apps;
        if (a.phase == RollbackAppPhase::kSyncing) ++syncing;
      }
      for (const auto& [step, counts] : per_step) {
        std::optional<long long> limit = MaxUpdateLimit(
            set_->strategy.steps.at(static_cast<size_t>(step - 1)).max_update, counts.second);
        if (limit && counts.first > std::max<long long>(1, *limit)) {
          return "step " + std::to_string(step) + " syncs " + std::to_string(counts.first) +
                 " apps back at once";
        }
      }
    }
    for (const SyncStart& s : r.starts) {
      if (s.trigger != SyncStartTrigger::kRollback) {
        // The rollback holds the generation's revision: nothing rolls out until a new commit.
        if (rollout.rollback)
          return std::string("a ") + SyncStartTriggerName(s.trigger) + " sync of " + s.app +
                 " while the rollback holds the revision";
        continue;
      }
      if (!rollout.rollback) return "sync back of " + s.app + " with no rollback";
      const RollbackState& rb = *rollout.rollback;
      // A generation has at most one failed step's rollback, then operators' ones.
      const std::string key = std::to_string(rollout.generation) + " " +
                              std::to_string(operator_rollbacks_) + " " + s.app;
      if (!synced_back_.insert(key).second) return "sync back of " + s.app + " sent again";
      if (!Find(s.app).reachable) return "sync back of " + s.app + " on an unreachable cluster";
      // A sync still running at the failed revision finishes first.
      if (auto it = before.find(s.app); it != before.end() && it->second.operation &&
                                        it->second.operation->phase == OperationPhase::kRunning) {
        return "sync back of " + s.app + " while its operation " + it->second.operation->id +
               " runs";
      }
      const RollbackApp* mine = nullptr;
      for (const RollbackApp& a : rb.apps) {
        if (a.app == s.app) mine = &a;
      }
      if (mine == nullptr) return "sync back of " + s.app + ", not one of the rollback's apps";
      if (s.record.revisions != mine->to) return "sync back of " + s.app + " to the wrong place";
      for (const RollbackApp& a : rb.apps) {
        if (a.step > mine->step &&
            (a.phase == RollbackAppPhase::kWaiting || a.phase == RollbackAppPhase::kSyncing)) {
          return "sync back of " + s.app + " (step " + std::to_string(mine->step) + ") before " +
                 a.app + " (step " + std::to_string(a.step) + ")";
        }
      }
    }
    return "";
  }

  // The from-scratch decision the daemon commits, and a new decider seeded from it.
  std::string Commit(int) {
    AppSetReconcileResult r = ReconcileAppSet(OracleInput());
    const std::map<std::string, StoredApp> before = oracle_->apps;
    oracle_->Persist(r);
    Count(r, false);
    if (std::string broken = RollbackRulesBroken(r, before); !broken.empty()) return broken;
    decider_ = std::make_unique<RollingSyncDecider>(set_, oracle_->status, std::move(r.observed),
                                                    oracle_->apps, std::nullopt, now_);
    return "";
  }

  std::string Decide(const std::set<std::string>& changed, bool checked = false) {
    for (const auto& name : changed) PutRefreshed(*decider_, name, Observe(Find(name)));
    DeciderCheck check;
    const Json entries_before = decider_->status().value("applicationStatus", Json::array());
    const AppSetDelta d = checked ? decider_->DecideChecked(now_, check) : decider_->Decide(now_);
    if (!check.agrees) return "checked decision: " + check.difference;
    // A publisher looks only at entry_positions: every entry that differs must be among them,
    // and each names an app of changed_entries.
    if (d.entry_positions) {
      const Json after = decider_->status().value("applicationStatus", Json::array());
      if (after.size() != entries_before.size()) return "entry_positions with a resized list";
      std::set<std::size_t> listed(d.entry_positions->begin(), d.entry_positions->end());
      std::set<std::string> changed_apps;
      for (const auto& e : d.changed_entries) changed_apps.insert(e.application);
      for (std::size_t i = 0; i < after.size(); ++i) {
        if (after[i] != entries_before[i] && !listed.count(i)) {
          return "entry " + std::to_string(i) + " changed but is not in entry_positions";
        }
      }
      for (std::size_t p : listed) {
        if (p >= after.size() || !changed_apps.count(after[p].value("application", ""))) {
          return "entry_positions names " + std::to_string(p) + ", no changed entry";
        }
      }
      ++patched_decisions_;
    }
    // The daemon commits the delta, then tells the decider what the store holds now.
    for (const auto& [app, spec] : d.specs) decider_->SetSpec(app, spec);
    for (const auto& s : d.starts) decider_->SetOperation(s.app, s.record);

    const AppSetReconcileResult r = ReconcileAppSet(OracleInput());
    const std::map<std::string, StoredApp> before = oracle_->apps;
    oracle_->Persist(r);
    Count(r, true);
    for (const auto& e : r.plan.application_status) {
      if (e.status == RolloutAppState::kPending) ++promotions_;
    }

    if (decider_->status() != r.status) {
      return "status: incremental " + decider_->status().dump() + "\nfrom scratch " +
             r.status.dump();
    }
    auto ids = [](const std::vector<SyncStart>& starts) {
      std::vector<std::string> out;
      for (const auto& s : starts) out.push_back(s.app + " " + s.record.id);
      return out;
    };
    if (ids(d.starts) != ids(r.starts)) {
      return "starts: incremental " + Json(ids(d.starts)).dump() + ", from scratch " +
             Json(ids(r.starts)).dump();
    }
    std::vector<std::string> specs_d, specs_r;
    for (const auto& [app, spec] : d.specs) specs_d.push_back(app + spec.dump());
    for (const auto& [app, spec] : r.specs) specs_r.push_back(app + spec.dump());
    if (specs_d != specs_r) return "specs: " + Json(specs_d).dump() + " vs " + Json(specs_r).dump();
    // Each due attempt is reported once per state of its operation (the decider does not list
    // the thousands in flight at every event): none the oracle does not find due, and every one
    // it finds due was reported at the operation it has now.
    if (!std::includes(r.attempts_due.begin(), r.attempts_due.end(), d.attempts_due.begin(),
                       d.attempts_due.end())) {
      return "attempts due: " + Json(d.attempts_due).dump() + " not among " +
             Json(r.attempts_due).dump();
    }
    for (const auto& app : d.attempts_due) {
      reported_[app] = OperationRecordToJson(*oracle_->apps.at(app).operation).dump();
    }
    for (const auto& app : r.attempts_due) {
      const std::string now_op = OperationRecordToJson(*oracle_->apps.at(app).operation).dump();
      auto it = reported_.find(app);
      if (it == reported_.end() || it->second != now_op) {
        return "attempt due never reported: " + app + " " + now_op;
      }
    }
    if (d.wake_at != r.wake_at) {
      auto text = [](const std::optional<Time>& t) {
        return t ? FormatRfc3339(*t) : std::string("none");
      };
      return "wake_at differs: decider " + text(d.wake_at) + ", from scratch " + text(r.wake_at) +
             " at " + FormatRfc3339(now_);
    }
    // "sync held back" is told in the decision that made the entry Pending; the from-scratch
    // reconcile, which remembers nothing, tells it again in every decision of that second, the
    // decider once. Every other line is the same, in the same order.
    auto held = [](const std::string& line) {
      return line.find(" sync held back: ") != std::string::npos;
    };
    std::vector<std::string> log_d, log_r;
    std::copy_if(d.log.begin(), d.log.end(), std::back_inserter(log_d),
                 [&](const std::string& l) { return !held(l); });
    std::copy_if(r.log.begin(), r.log.end(), std::back_inserter(log_r),
                 [&](const std::string& l) { return !held(l); });
    if (log_d != log_r) return "log: " + Json(d.log).dump() + "\nvs " + Json(r.log).dump();
    for (const auto& line : d.log) {
      if (held(line) && std::find(r.log.begin(), r.log.end(), line) == r.log.end()) {
        return "held-back line not told from scratch: " + line;
      }
    }
    if (d.drifted != r.plan.drifted) return "drifted differs";
    if (std::string broken = RollbackRulesBroken(r, before); !broken.empty()) return broken;
    const auto& apps = decider_->applications();
    if (apps.size() != r.applications.size()) return "application count differs";
    for (size_t i = 0; i < apps.size(); ++i) {
      if (WithoutReconciledAt(*apps[i]) != WithoutReconciledAt(*r.applications[i])) {
        return "application: incremental " + apps[i]->dump() + "\nfrom scratch " +
               r.applications[i]->dump();
      }
    }
    return "";
  }

  std::mt19937_64 rng_;
  Time now_;
  std::shared_ptr<ApplicationSet> set_;
  std::vector<FakeApp> fleet_;
  std::unique_ptr<FakeStore> oracle_;
  std::unique_ptr<RollingSyncDecider> decider_;
  std::map<std::string, std::string> reported_;  // app -> its operation when reported due
  std::set<std::string> synced_back_;  // "generation operator-rollbacks app" of each sync back
  int operator_rollbacks_ = 0;
  int revision_ = 1;
  int promotions_ = 0;
  int patched_decisions_ = 0;  // decisions that named their entries' positions
  int starts_ = 0;
  int rollback_starts_ = 0;
};

// Seeds 1..80 in CI; bench/decider_differential runs many more through the same test
// (FLEETWAVE_DECIDER_FIRST_SEED, FLEETWAVE_DECIDER_SEEDS).
uint64_t SeedSetting(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}

TEST(RollingSyncDeciderTest, DecidesAsTheFromScratchReconcileAfterEveryEvent) {
  long long promotions = 0, starts = 0, rollback_starts = 0, patched = 0;
  const uint64_t first = SeedSetting("FLEETWAVE_DECIDER_FIRST_SEED", 1);
  const uint64_t count = std::max<uint64_t>(1, SeedSetting("FLEETWAVE_DECIDER_SEEDS", 80));
  for (uint64_t seed = first; seed < first + count; ++seed) {
    DeciderWorld world(seed);
    for (int event = 0; event < 120; ++event) {
      const std::string difference = world.Step();
      ASSERT_EQ(difference, "") << "seed " << seed << ", event " << event;
    }
    promotions += world.promotions();
    starts += world.starts();
    rollback_starts += world.rollback_starts();
    patched += world.patched_decisions();
  }
  // The runs exercised the rollout: entries were promoted and syncs started.
  EXPECT_GT(promotions, static_cast<long long>(count) * 700 / 80);
  EXPECT_GT(starts, static_cast<long long>(count) * 300 / 80);
  // ... and rolled failed steps back through the decider (seeds 1..80 start 52 syncs back).
  EXPECT_GT(rollback_starts, static_cast<long long>(count) * 25 / 80);
  // ... and most decisions patched entries in place and said where (entry_positions).
  EXPECT_GT(patched, static_cast<long long>(count) * 60);
}

// The daemon's check that it fed the decider every stored fact: the first app whose spec or
// operation differs from the store's copy, or a key only one side has.
TEST(StoredAppsDifferenceTest, NamesTheFirstAppWhoseStoredFactsDiffer) {
  const Time t0 = FromUnixSeconds(1'800'000'000);
  std::map<std::string, StoredApp> store;
  store["a"].spec = Json{{"project", "default"}};
  store["b"].operation = StartOperation("op-1", Json::object(), {"sha"}, t0);
  EXPECT_EQ(StoredAppsDifference(store, store), "");

  auto finished = store;
  finished["b"].operation->phase = OperationPhase::kSucceeded;
  EXPECT_NE(StoredAppsDifference(store, finished).find("app \"b\": its operation differs"),
            std::string::npos);
  auto respecced = store;
  respecced["a"].spec = Json{{"project", "other"}};
  EXPECT_EQ(StoredAppsDifference(respecced, store), "app \"a\": its stored spec differs");
  auto fewer = store;
  fewer.erase("a");
  EXPECT_EQ(StoredAppsDifference(fewer, store), "app \"a\": in the store, not held by the decider");
  EXPECT_EQ(StoredAppsDifference(store, fewer), "app \"a\": held by the decider, not in the store");
  auto fingerprinted = store;  // a cache, not a fact
  fingerprinted["a"].spec_fingerprint = 42;
  EXPECT_EQ(StoredAppsDifference(fingerprinted, store), "");
}

}  // namespace
}  // namespace fleetwave::engine
