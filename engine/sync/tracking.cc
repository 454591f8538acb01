#include "engine/sync/tracking.h"

#include <cstdio>

namespace fleetwave::engine {

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string Fnv1a64Hex(std::string_view bytes) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(Fnv1a64(bytes)));
  return buf;
}

std::string TrackingId(const AppIdentity& app, const ObjectRef& ref) {
  return app.appset + "/" + app.app + ":" + ref.group + "/" + ref.kind + ":" + ref.namespace_ +
         "/" + ref.name;
}

std::optional<ParsedTrackingId> ParseTrackingId(std::string_view id) {
  // ApplicationSet, Application, kind and namespace names cannot hold ':' or '/', and a group
  // cannot hold '/', so the separators are unambiguous. An object name may hold ':'.
  const auto c1 = id.find(':');
  if (c1 == std::string_view::npos) return std::nullopt;
  const auto c2 = id.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  const std::string_view app = id.substr(0, c1);
  const std::string_view gk = id.substr(c1 + 1, c2 - c1 - 1);
  const std::string_view nn = id.substr(c2 + 1);
  const auto s1 = app.find('/');
  const auto s2 = gk.find('/');
  const auto s3 = nn.find('/');
  if (s1 == std::string_view::npos || s2 == std::string_view::npos ||
      s3 == std::string_view::npos) {
    return std::nullopt;
  }
  ParsedTrackingId out;
  out.app = {std::string(app.substr(0, s1)), std::string(app.substr(s1 + 1))};
  out.ref = {std::string(gk.substr(0, s2)), std::string(gk.substr(s2 + 1)),
             std::string(nn.substr(0, s3)), std::string(nn.substr(s3 + 1))};
  if (out.app.appset.empty() || out.app.app.empty() || out.ref.kind.empty() ||
      out.ref.name.empty()) {
    return std::nullopt;
  }
  return out;
}

std::string AppLabelValue(const AppIdentity& app) { return Fnv1a64Hex(app.appset + "/" + app.app); }

std::string CanonicalJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string ObjectHash(const Json& object) {
  if (AnnotationOf(object, kAppliedHashAnnotation).empty()) {
    return Fnv1a64Hex(CanonicalJson(object));
  }
  Json copy = object;
  copy["metadata"]["annotations"].erase(kAppliedHashAnnotation);
  if (copy["metadata"]["annotations"].empty()) copy["metadata"].erase("annotations");
  return Fnv1a64Hex(CanonicalJson(copy));
}

std::string AnnotationOf(const Json& object, std::string_view key) {
  if (!object.is_object()) return "";
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto ann = meta->find("annotations");
  if (ann == meta->end() || !ann->is_object()) return "";
  auto v = ann->find(key);
  return v != ann->end() && v->is_string() ? v->get<std::string>() : "";
}

bool HasSyncOption(std::string_view options, std::string_view option) {
  while (!options.empty()) {
    const auto comma = options.find(',');
    std::string_view entry = options.substr(0, comma);
    while (!entry.empty() && (entry.front() == ' ' || entry.front() == '\t'))
      entry.remove_prefix(1);
    while (!entry.empty() && (entry.back() == ' ' || entry.back() == '\t')) entry.remove_suffix(1);
    if (entry == option) return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace fleetwave::engine
