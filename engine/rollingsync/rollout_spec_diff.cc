#include "engine/rollingsync/rollout_spec_diff.h"

#include <exception>

namespace fleetwave::engine {
namespace {

bool HasAutomatedEnabled(const Json& spec) {
  auto policy = spec.find("syncPolicy");
  if (policy == spec.end() || !policy->is_object()) return false;
  auto automated = policy->find("automated");
  return automated != policy->end() && automated->is_object() && automated->contains("enabled");
}

// Removes what must not count as a difference, on a copy wrapped as {"spec": ...} so the
// pointers can be written relative to the Application as Argo CD users write them.
Json Normalized(const Json& spec, const std::vector<std::string>& ignore_pointers) {
  Json app = {{"spec", spec}};
  Json& s = app["spec"];
  if (auto policy = s.find("syncPolicy"); policy != s.end() && policy->is_object()) {
    if (auto automated = policy->find("automated");
        automated != policy->end() && automated->is_object()) {
      if (auto enabled = automated->find("enabled");
          enabled != automated->end() && enabled->is_boolean() && !enabled->get<bool>()) {
        automated->erase(enabled);
      }
    }
  }
  for (const auto& text : ignore_pointers) {
    try {
      const Json::json_pointer ptr(text);
      if (ptr.empty() || !app.contains(ptr)) continue;
      Json& parent = app.at(ptr.parent_pointer());
      if (parent.is_object()) {
        parent.erase(ptr.back());
      } else if (parent.is_array()) {
        parent.erase(std::stoul(ptr.back()));
      }
    } catch (const std::exception&) {
      // A malformed pointer ignores nothing; the decoder reports it.
    }
  }
  return app;
}

}  // namespace

const Json& DesiredSpecOf(const GeneratedApplication& app) {
  static const Json empty = Json::object();
  auto it = app.object.find("spec");
  return it != app.object.end() && it->is_object() ? *it : empty;
}

bool SpecDiffers(const Json& desired_spec, const Json& live_spec,
                 const std::vector<std::string>& ignore_pointers) {
  // Equal documents stay equal once the same parts are removed from both, and equality is
  // the common case: compare in place first, copy and normalise only on a difference.
  if (desired_spec == live_spec) return false;
  if (ignore_pointers.empty() && !HasAutomatedEnabled(desired_spec) &&
      !HasAutomatedEnabled(live_spec)) {
    return true;
  }
  return Normalized(desired_spec, ignore_pointers) != Normalized(live_spec, ignore_pointers);
}

bool AppSpecDiffers(const GeneratedApplication& desired, const Application& live,
                    const std::vector<std::string>& ignore_pointers) {
  // Equal fingerprints mean equal specs, and equal specs never differ whatever is ignored.
  if (SpecFingerprintsEqual(desired.spec_fingerprint, live.spec_fingerprint)) return false;
  return SpecDiffers(DesiredSpecOf(desired), live.spec, ignore_pointers);
}

}  // namespace fleetwave::engine
