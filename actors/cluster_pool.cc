#include "actors/cluster_pool.h"

#include <caf/all.hpp>
#include <utility>

#include "actors/atoms.h"

namespace fleetwave::actors {

ClusterPool::ClusterPool(caf::actor_system& system, Spawn spawn)
    : system_(system), spawn_(std::move(spawn)), shared_(std::make_shared<Shared>()) {}

ClusterPool::~ClusterPool() = default;

ClusterActor ClusterPool::Acquire(const clients::ClusterConfig& config) {
  std::lock_guard<std::recursive_mutex> lock(shared_->mu);
  auto it = shared_->members.find(config.name);
  if (it != shared_->members.end() && it->second.config == config) return it->second.actor;
  if (it != shared_->members.end()) {
    // Whole values: any changed field must reach the client, which only a new actor builds.
    caf::anon_send_exit(it->second.actor, caf::exit_reason::user_shutdown);
    shared_->members.erase(it);
  }
  ClusterActor actor = spawn_(system_, config, shared_->deciding);
  // Forgotten when it ends, whoever ended it: the next Acquire spawns a new one. Runs in the
  // actor's cleanup, before any monitor hears of its end.
  std::weak_ptr<Shared> weak = shared_;
  const caf::actor_addr addr = actor.address();
  caf::actor_cast<caf::abstract_actor*>(actor)->attach_functor([weak, name = config.name, addr] {
    if (auto shared = weak.lock()) {
      std::lock_guard<std::recursive_mutex> lock(shared->mu);
      auto member = shared->members.find(name);
      if (member != shared->members.end() && member->second.actor.address() == addr) {
        shared->members.erase(member);
      }
    }
  });
  shared_->members[config.name] = Member{config, actor};
  return actor;
}

void ClusterPool::SetDeciding(bool deciding) {
  std::lock_guard<std::recursive_mutex> lock(shared_->mu);
  shared_->deciding = deciding;
  for (auto& [name, member] : shared_->members) {
    caf::anon_send(member.actor, decide_atom::value, deciding);
  }
}

void ClusterPool::WatchKinds(const std::string& cluster, const std::vector<std::string>& kinds) {
  std::lock_guard<std::recursive_mutex> lock(shared_->mu);
  auto it = shared_->members.find(cluster);
  if (it == shared_->members.end()) return;
  for (const std::string& key : kinds) {
    const size_t slash = key.rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == key.size()) continue;
    caf::anon_send(it->second.actor, watch_kind_atom::value, key.substr(0, slash),
                   key.substr(slash + 1));
  }
}

void ClusterPool::StopAll() {
  std::map<std::string, Member> members;
  {
    std::lock_guard<std::recursive_mutex> lock(shared_->mu);
    members.swap(shared_->members);
  }
  for (auto& [name, member] : members) {
    caf::anon_send_exit(member.actor, caf::exit_reason::user_shutdown);
  }
}

}  // namespace fleetwave::actors
