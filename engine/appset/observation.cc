#include "engine/appset/observation.h"

#include <utility>

namespace fleetwave::engine {
namespace {

// Why `o`'s project refuses its rendered objects; "" when it permits them.
std::string RefusalOf(const AppProjects* projects, const ObservedApp& o) {
  if (projects == nullptr) return "";
  std::vector<ObjectRef> refs;
  refs.reserve(o.rendered ? o.rendered->size() : 0);
  if (o.rendered) {
    for (const auto& object : *o.rendered) refs.push_back(object.ref);
  }
  static const Json kNoSpec = Json::object();
  auto spec = o.desired.object.find("spec");
  ProjectCheckInput in;
  in.app = o.desired.name;
  in.spec = spec != o.desired.object.end() ? &*spec : &kNoSpec;
  in.cluster = o.desired.cluster;
  in.objects = &refs;
  return ProjectRefusal(projects, in);
}

}  // namespace

void ObserveRender(const AppProjects* projects, const RenderSeen* render, ObservedApp& o) {
  const auto rendered = o.rendered;
  const auto source_error = o.source_error;
  if (render != nullptr && !render->error && render->objects != nullptr) {
    o.revisions = render->revisions;
    o.rendered = render->objects;
    o.source_error.reset();
    o.repository_errors.clear();
    if (std::string refusal = RefusalOf(projects, o); !refusal.empty()) {
      o.revisions.clear();
      o.rendered = nullptr;
      o.source_error = InvalidInputError("", std::move(refusal));
    }
  } else {
    o.revisions.clear();
    o.rendered = nullptr;
    o.source_error =
        render != nullptr && render->error ? *render->error : PermanentError("", "not rendered");
    o.repository_errors = render == nullptr ? std::vector<Error>{} : render->repository_errors;
  }
  if (o.rendered != rendered || o.source_error != source_error) o.compared = nullptr;
}

void ObserveCluster(const ClusterFlags* cluster, ObservedApp& o) {
  const bool reachable = cluster != nullptr && cluster->up();
  if (reachable != o.reachable) o.compared = nullptr;
  o.reachable = reachable;
  o.observed = cluster != nullptr && cluster->listed;
}

ObservationRefresh RefreshOf(const GeneratedApplication& kept, const GeneratedApplication& app,
                             bool same_generation, bool live_changed, bool applied_changed) {
  ObservationRefresh out;
  const bool moved = !same_generation && kept.cluster != app.cluster;
  out.desired = !same_generation && (moved || kept.spec_fingerprint != app.spec_fingerprint ||
                                     kept.labels != app.labels || kept.object != app.object);
  out.render = !same_generation;
  out.live = moved || live_changed;
  out.applied = applied_changed;
  return out;
}

ClusterReportEffect ApplyClusterReport(const std::string& cluster, const ClusterFlags& before,
                                       bool reachable, bool synced) {
  ClusterReportEffect out;
  out.flags.reachable = reachable;
  out.flags.synced = synced;
  out.flags.listed = before.listed || synced;
  const bool up_changed = before.up() != out.flags.up();
  out.changed = up_changed || before.listed != out.flags.listed;
  if (up_changed) {
    out.log = "cluster=" + cluster + " " + (out.flags.up() ? "is reachable" : "is unreachable");
  }
  return out;
}

}  // namespace fleetwave::engine
