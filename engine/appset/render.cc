#include "engine/appset/render.h"

#include <algorithm>
#include <map>

#include "engine/k8s_names.h"

namespace fleetwave::engine {
namespace {

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string StringMember(const Json& object, const char* key) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// Namespaces before CRDs before the rest: a namespaced object needs its namespace, a custom
// resource needs its definition (the apply order rule; pinned by render_test "Ordering").
int ApplyRank(const ObjectRef& ref) {
  if (IsNamespace(ref)) return 0;
  if (IsCrd(ref)) return 1;
  return 2;
}

struct Flattened {
  std::string origin;
  const Json* object;
};

void Flatten(const ManifestDocument& doc, std::vector<Flattened>& out, Issues& issues) {
  const Json& o = doc.object;
  if (!o.is_object()) {
    issues.push_back({doc.origin, {}, "", "manifest is not an object"});
    return;
  }
  const Json* items = Member(o, "items");
  if (StringMember(o, "apiVersion") == "v1" && StringMember(o, "kind") == "List" && items &&
      items->is_array()) {
    for (size_t i = 0; i < items->size(); ++i) {
      if (!(*items)[i].is_object()) {
        issues.push_back(
            {doc.origin, {}, "items[" + std::to_string(i) + "]", "manifest is not an object"});
        continue;
      }
      out.push_back({doc.origin, &(*items)[i]});
    }
    return;
  }
  out.push_back({doc.origin, &o});
}

}  // namespace

Discovery Discovery::BuiltIn() {
  Discovery d;
  d.cluster_scoped = {
      "/Namespace",
      "/Node",
      "/PersistentVolume",
      "/ComponentStatus",
      "admissionregistration.k8s.io/MutatingWebhookConfiguration",
      "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
      "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
      "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
      "apiextensions.k8s.io/CustomResourceDefinition",
      "apiregistration.k8s.io/APIService",
      "certificates.k8s.io/CertificateSigningRequest",
      "flowcontrol.apiserver.k8s.io/FlowSchema",
      "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
      "networking.k8s.io/IngressClass",
      "node.k8s.io/RuntimeClass",
      "rbac.authorization.k8s.io/ClusterRole",
      "rbac.authorization.k8s.io/ClusterRoleBinding",
      "scheduling.k8s.io/PriorityClass",
      "storage.k8s.io/CSIDriver",
      "storage.k8s.io/CSINode",
      "storage.k8s.io/StorageClass",
      "storage.k8s.io/VolumeAttachment",
  };
  return d;
}

RenderResult Render(const RenderInput& input, const InputLimits& limits) {
  RenderResult result;
  // The destination namespace is pasted into every namespaced object (and so into its request
  // path): a bad one fails the render before anything is built from it.
  if (std::string why = NamespaceProblem(input.destination_namespace);
      !input.destination_namespace.empty() && !why.empty()) {
    result.issues.push_back({"",
                             {},
                             "spec.destination.namespace",
                             "Application " + QuoteExcerpt(input.app.app) + ": " + why});
    return result;
  }
  std::vector<Flattened> docs;
  for (const auto& doc : input.manifests) Flatten(doc, docs, result.issues);

  // CRDs shipped with the app tell the scope of their own kinds before any cluster has them.
  Discovery discovery = input.discovery;
  for (const auto& d : docs) {
    const ObjectRef ref = RefOf(*d.object);
    if (!IsCrd(ref)) continue;
    const Json* spec = Member(*d.object, "spec");
    if (spec == nullptr || StringMember(*spec, "scope") != "Cluster") continue;
    const Json* names = Member(*spec, "names");
    const std::string kind = names ? StringMember(*names, "kind") : "";
    if (!kind.empty()) discovery.cluster_scoped.insert(StringMember(*spec, "group") + "/" + kind);
  }

  const std::string default_ns =
      input.destination_namespace.empty() ? "default" : input.destination_namespace;
  std::map<ObjectRef, std::string> seen;  // ref -> origin of its first definition
  std::size_t rendered_bytes = 0;
  for (const auto& d : docs) {
    Json object = *d.object;
    const std::string api_version = StringMember(object, "apiVersion");
    const std::string kind = StringMember(object, "kind");
    const Json* meta = Member(object, "metadata");
    const std::string name = meta ? StringMember(*meta, "name") : "";
    if (api_version.empty() || kind.empty() || name.empty()) {
      const std::string missing = api_version.empty() ? "apiVersion"
                                  : kind.empty()      ? "kind"
                                                      : "metadata.name";
      result.issues.push_back(
          {d.origin,
           {},
           missing,
           (kind.empty() ? std::string("object") : kind) + " has no " + missing});
      continue;
    }
    ObjectRef ref = RefOf(object);
    if (std::string why = ObjectNameProblem(ref.group, ref.kind, name); !why.empty()) {
      result.issues.push_back({d.origin, {}, "metadata.name", why});
      continue;
    }
    // Namespace defaulting (pinned by render_test "NamespaceDefaulting").
    if (discovery.IsClusterScoped(ref.group, ref.kind)) {
      object["metadata"].erase("namespace");
      ref.namespace_.clear();
    } else if (ref.namespace_.empty()) {
      object["metadata"]["namespace"] = default_ns;
      ref.namespace_ = default_ns;
    } else if (std::string why = NamespaceProblem(ref.namespace_); !why.empty()) {
      result.issues.push_back({d.origin, {}, "metadata.namespace", ref.KindName() + ": " + why});
      continue;
    }
    if (auto [it, inserted] = seen.emplace(ref, d.origin); !inserted) {
      result.issues.push_back(
          {d.origin,
           {},
           "",
           ref.KindName() + (ref.namespace_.empty() ? "" : " in namespace " + ref.namespace_) +
               " is defined twice (first in " + it->second + ")"});
      continue;
    }
    // Marking (pinned by render_test "Marking"): ownership, selector label, then the hash of
    // everything above, so the hash covers the marks but not itself.
    Json& m = object["metadata"];
    if (!m.contains("annotations") || !m["annotations"].is_object())
      m["annotations"] = Json::object();
    if (!m.contains("labels") || !m["labels"].is_object()) m["labels"] = Json::object();
    RenderedObject r;
    r.ref = ref;
    r.tracking_id = TrackingId(input.app, ref);
    m["annotations"][kTrackingIdAnnotation] = r.tracking_id;
    m["annotations"].erase(kAppliedHashAnnotation);
    m["labels"][kAppLabel] = AppLabelValue(input.app);
    const std::string canonical = CanonicalJson(object);
    r.applied_hash = Fnv1a64Hex(canonical);
    // The budget counts each object as hashed (the hash annotation itself aside): the first
    // object over it ends the render, so a huge repository costs one budget, not its size.
    rendered_bytes += canonical.size();
    if (rendered_bytes > limits.max_render_bytes) {
      result.objects.clear();
      result.issues.push_back({d.origin,
                               {},
                               "",
                               "the rendered objects exceed limits.maxRenderBytes (" +
                                   std::to_string(limits.max_render_bytes) + " bytes) at " +
                                   ref.KindName()});
      return result;
    }
    m["annotations"][kAppliedHashAnnotation] = r.applied_hash;
    r.object = std::move(object);
    result.objects.push_back(std::move(r));
  }
  std::stable_sort(result.objects.begin(), result.objects.end(),
                   [](const RenderedObject& a, const RenderedObject& b) {
                     return ApplyRank(a.ref) < ApplyRank(b.ref);
                   });
  return result;
}

Json RedactSecret(const Json& object) {
  const ObjectRef ref = RefOf(object);
  if (!ref.group.empty() || ref.kind != "Secret") return object;
  Json out = object;
  for (const char* field : {"data", "stringData"}) {
    auto it = out.find(field);
    if (it == out.end()) continue;
    if (it->is_object()) {
      for (auto& value : *it) value = kRedacted;
    } else if (!it->is_null()) {
      *it = kRedacted;
    }
  }
  auto meta = out.find("metadata");
  if (meta != out.end() && meta->is_object()) {
    auto ann = meta->find("annotations");
    if (ann != meta->end() && ann->is_object()) {
      for (const char* key :
           {kAppliedHashAnnotation, "kubectl.kubernetes.io/last-applied-configuration"}) {
        if (ann->contains(key)) (*ann)[key] = kRedacted;
      }
    }
  }
  return out;
}

}  // namespace fleetwave::engine
