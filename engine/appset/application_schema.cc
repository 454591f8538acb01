#include "engine/appset/application_schema.h"

#include <functional>
#include <initializer_list>
#include <utility>

namespace fleetwave::engine {
namespace {

enum class Kind { kString, kBool, kInt, kStringMap, kStringList, kObject };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kString:
      return "string";
    case Kind::kBool:
      return "boolean";
    case Kind::kInt:
      return "integer";
    case Kind::kStringMap:
    case Kind::kObject:
      return "object";
    case Kind::kStringList:
      return "array";
  }
  return "?";
}

class Checker {
 public:
  std::vector<FieldTypeProblem> problems;

  // A field of `object` (when it is an object) that must have kind `k`.
  void Field(const Json& object, const char* key, Kind k) {
    const Json* v = Child(object, key);
    if (!v) return;
    Push(key);
    Value(*v, k);
    Pop();
  }

  // A field that must be an object; `inner` checks its fields.
  void Object(const Json& object, const char* key, const std::function<void(const Json&)>& inner) {
    const Json* v = Child(object, key);
    if (!v) return;
    Push(key);
    if (Value(*v, Kind::kObject)) inner(*v);
    Pop();
  }

  // A field that must be an array of objects; `inner` checks each element's fields.
  void ObjectList(const Json& object, const char* key,
                  const std::function<void(const Json&)>& inner) {
    const Json* v = Child(object, key);
    if (!v) return;
    Push(key);
    if (v->is_array()) {
      for (size_t i = 0; i < v->size(); ++i) {
        Push(i);
        if (Value((*v)[i], Kind::kObject)) inner((*v)[i]);
        Pop();
      }
    } else {
      Wrong("array", *v);
    }
    Pop();
  }

 private:
  static const Json* Child(const Json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }

  // True when `v` has kind `k` (elements of string maps and lists are checked too).
  bool Value(const Json& v, Kind k) {
    switch (k) {
      case Kind::kString:
        return v.is_string() || Wrong(KindName(k), v);
      case Kind::kBool:
        return v.is_boolean() || Wrong(KindName(k), v);
      case Kind::kInt:
        return v.is_number_integer() || Wrong(KindName(k), v);
      case Kind::kObject:
        return v.is_object() || Wrong(KindName(k), v);
      case Kind::kStringMap:
        if (!v.is_object()) return Wrong(KindName(k), v);
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (it->is_string()) continue;
          Push(it.key());
          Wrong("string", *it);
          Pop();
        }
        return true;
      case Kind::kStringList:
        if (!v.is_array()) return Wrong(KindName(k), v);
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].is_string()) continue;
          Push(i);
          Wrong("string", v[i]);
          Pop();
        }
        return true;
    }
    return true;
  }

  bool Wrong(const char* want, const Json& got) {
    std::string path;
    for (const Json& s : at_) {
      if (s.is_string()) {
        path += (path.empty() ? "" : ".") + s.get<std::string>();
      } else {
        path += "[" + std::to_string(s.get<size_t>()) + "]";
      }
    }
    problems.push_back(
        {at_, path, std::string("wrong type: expected ") + want + ", got " + JsonTypeName(got)});
    return false;
  }

  void Push(const std::string& key) { at_.emplace_back(key); }
  void Push(size_t index) { at_.emplace_back(index); }
  void Pop() { at_.pop_back(); }

  std::vector<Json> at_;
};

void Source(Checker& c, const Json& s) {
  for (const char* key : {"repoURL", "path", "targetRevision", "chart", "ref", "name"})
    c.Field(s, key, Kind::kString);
  c.Object(s, "directory", [&](const Json& d) {
    c.Field(d, "recurse", Kind::kBool);
    c.Field(d, "exclude", Kind::kString);
    c.Field(d, "include", Kind::kString);
  });
  c.Object(s, "kustomize", [&](const Json& k) {
    for (const char* key : {"namePrefix", "nameSuffix", "namespace", "version"})
      c.Field(k, key, Kind::kString);
    c.Field(k, "images", Kind::kStringList);
    c.Field(k, "components", Kind::kStringList);
    c.Field(k, "commonLabels", Kind::kStringMap);
    c.Field(k, "commonAnnotations", Kind::kStringMap);
    c.Field(k, "forceCommonLabels", Kind::kBool);
    c.Field(k, "forceCommonAnnotations", Kind::kBool);
  });
  c.Object(s, "helm", [](const Json&) {});
  c.Object(s, "plugin", [](const Json&) {});
}

}  // namespace

std::string JsonTypeName(const Json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return "null";
}

std::vector<FieldTypeProblem> CheckApplicationFieldTypes(const Json& app) {
  Checker c;
  c.Object(app, "metadata", [&](const Json& m) {
    c.Field(m, "name", Kind::kString);
    c.Field(m, "namespace", Kind::kString);
    c.Field(m, "labels", Kind::kStringMap);
    c.Field(m, "annotations", Kind::kStringMap);
    c.Field(m, "finalizers", Kind::kStringList);
  });
  c.Object(app, "spec", [&](const Json& spec) {
    c.Field(spec, "project", Kind::kString);
    c.Field(spec, "revisionHistoryLimit", Kind::kInt);
    c.Object(spec, "destination", [&](const Json& d) {
      for (const char* key : {"server", "name", "namespace"}) c.Field(d, key, Kind::kString);
    });
    c.Object(spec, "source", [&](const Json& s) { Source(c, s); });
    c.ObjectList(spec, "sources", [&](const Json& s) { Source(c, s); });
    c.Object(spec, "syncPolicy", [&](const Json& p) {
      c.Object(p, "automated", [&](const Json& a) {
        for (const char* key : {"prune", "selfHeal", "allowEmpty", "enabled"})
          c.Field(a, key, Kind::kBool);
      });
      c.Field(p, "syncOptions", Kind::kStringList);
      c.Object(p, "retry", [&](const Json& r) {
        c.Field(r, "limit", Kind::kInt);
        c.Object(r, "backoff", [&](const Json& b) {
          c.Field(b, "duration", Kind::kString);
          c.Field(b, "factor", Kind::kInt);
          c.Field(b, "maxDuration", Kind::kString);
        });
      });
      c.Object(p, "managedNamespaceMetadata", [&](const Json& m) {
        c.Field(m, "labels", Kind::kStringMap);
        c.Field(m, "annotations", Kind::kStringMap);
      });
    });
    c.ObjectList(spec, "ignoreDifferences", [&](const Json& d) {
      for (const char* key : {"group", "kind", "name", "namespace"}) c.Field(d, key, Kind::kString);
      for (const char* key : {"jsonPointers", "jqPathExpressions", "managedFieldsManagers"})
        c.Field(d, key, Kind::kStringList);
    });
    c.ObjectList(spec, "info", [&](const Json& i) {
      c.Field(i, "name", Kind::kString);
      c.Field(i, "value", Kind::kString);
    });
  });
  return std::move(c.problems);
}

}  // namespace fleetwave::engine
