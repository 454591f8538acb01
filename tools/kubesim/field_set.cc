#include "tools/kubesim/field_set.h"

namespace fleetwave::kubesim {

namespace {

// Server-owned or identity fields that no manager owns.
bool SkippedMetadata(const std::string& key) {
  return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" ||
         key == "generation" || key == "creationTimestamp" || key == "managedFields" ||
         key == "deletionTimestamp" || key == "deletionGracePeriodSeconds" || key == "selfLink" ||
         key == "generateName";
}

std::string KeyElement(const std::string& key_field, const Json& key_value) {
  Json k = Json::object();
  k[key_field] = key_value;
  return "k:" + k.dump();
}

void Walk(const Json& value, std::vector<std::string>& names, FieldPath& prefix, FieldSet& out) {
  if (value.is_object() && !value.empty()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      names.push_back(it.key());
      prefix.push_back("f:" + it.key());
      Walk(it.value(), names, prefix, out);
      prefix.pop_back();
      names.pop_back();
    }
    return;
  }
  if (value.is_array() && !value.empty()) {
    std::string key = MergeKeyFor(names);
    bool keyed = !key.empty();
    for (const auto& item : value)
      if (!item.is_object() || !item.contains(key)) keyed = false;
    if (keyed) {
      for (const auto& item : value) {
        prefix.push_back(KeyElement(key, item[key]));
        prefix.push_back(".");
        out.insert(prefix);
        prefix.pop_back();
        for (auto it = item.begin(); it != item.end(); ++it) {
          names.push_back(it.key());
          prefix.push_back("f:" + it.key());
          Walk(it.value(), names, prefix, out);
          prefix.pop_back();
          names.pop_back();
        }
        prefix.pop_back();
      }
      return;
    }
  }
  out.insert(prefix);
}

// The list item of `list` that element `k:{...}` names, or end.
Json::const_iterator FindItem(const Json& list, const std::string& element) {
  Json key = Json::parse(element.substr(2), nullptr, false);
  if (key.is_discarded() || !key.is_object() || !list.is_array()) return list.end();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (!it->is_object()) continue;
    bool match = true;
    for (auto k = key.begin(); k != key.end(); ++k)
      if (!it->contains(k.key()) || (*it)[k.key()] != k.value()) match = false;
    if (match) return it;
  }
  return list.end();
}

}  // namespace

std::string MergeKeyFor(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  const std::string& last = names.back();
  if (last == "containers" || last == "initContainers" || last == "ephemeralContainers" ||
      last == "env" || last == "volumes" || last == "imagePullSecrets")
    return "name";
  if (last == "ports") {
    bool in_container = names.size() >= 2 && (names[names.size() - 2] == "containers" ||
                                              names[names.size() - 2] == "initContainers");
    return in_container ? "containerPort" : "port";
  }
  if (last == "volumeMounts") return "mountPath";
  if (last == "conditions") return "type";
  if (last == "ownerReferences") return "uid";
  if (last == "hostAliases") return "ip";
  return "";
}

FieldSet FieldsOf(const Json& object, FieldScope scope) {
  FieldSet out;
  if (!object.is_object()) return out;
  std::vector<std::string> names;
  FieldPath prefix;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key == "apiVersion" || key == "kind") continue;
    if (scope == FieldScope::kStatus && key != "status") continue;
    if (scope == FieldScope::kMain && key == "status") continue;
    if (key == "metadata" && it->is_object()) {
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (SkippedMetadata(m.key())) continue;
        names = {"metadata", m.key()};
        prefix = {"f:metadata", "f:" + m.key()};
        Walk(m.value(), names, prefix, out);
      }
      continue;
    }
    names = {key};
    prefix = {"f:" + key};
    Walk(it.value(), names, prefix, out);
  }
  return out;
}

Json ToFieldsV1(const FieldSet& set) {
  Json root = Json::object();
  for (const auto& path : set) {
    Json* node = &root;
    for (const auto& element : path) {
      if (!node->contains(element)) (*node)[element] = Json::object();
      node = &(*node)[element];
    }
  }
  return root;
}

namespace {
void CollectFields(const Json& node, FieldPath& prefix, FieldSet& out) {
  if (!node.is_object() || node.empty()) {
    if (!prefix.empty()) out.insert(prefix);
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    prefix.push_back(it.key());
    if (it.key() == ".")
      out.insert(prefix);
    else
      CollectFields(it.value(), prefix, out);
    prefix.pop_back();
  }
}
}  // namespace

FieldSet FromFieldsV1(const Json& fields_v1) {
  FieldSet out;
  FieldPath prefix;
  CollectFields(fields_v1, prefix, out);
  return out;
}

const Json* Lookup(const Json& object, const FieldPath& path) {
  const Json* node = &object;
  for (const auto& element : path) {
    if (element == ".") return node;
    if (element.rfind("f:", 0) == 0) {
      if (!node->is_object()) return nullptr;
      auto it = node->find(element.substr(2));
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (element.rfind("k:", 0) == 0) {
      auto it = FindItem(*node, element);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      return nullptr;
    }
  }
  return node;
}

void RemovePath(Json& object, const FieldPath& path) {
  if (path.empty()) return;
  bool item = path.back() == ".";
  FieldPath parent_path(path.begin(), path.end() - (item ? 2 : 1));
  const std::string& last = path[path.size() - (item ? 2 : 1)];
  Json* parent = const_cast<Json*>(Lookup(object, parent_path));
  if (!parent) return;
  if (last.rfind("f:", 0) == 0) {
    if (parent->is_object()) parent->erase(last.substr(2));
  } else if (last.rfind("k:", 0) == 0 && parent->is_array()) {
    auto it = FindItem(*parent, last);
    if (it != parent->end()) parent->erase(it);
  }
}

std::string DescribePath(const FieldPath& path) {
  std::string out;
  for (const auto& element : path) {
    if (element == ".") continue;
    if (element.rfind("f:", 0) == 0) {
      out += "." + element.substr(2);
    } else if (element.rfind("k:", 0) == 0) {
      Json key = Json::parse(element.substr(2), nullptr, false);
      out += "[";
      bool first = true;
      if (key.is_object())
        for (auto it = key.begin(); it != key.end(); ++it) {
          if (!first) out += ",";
          first = false;
          out += it.key() + "=" + it.value().dump();
        }
      out += "]";
    }
  }
  return out;
}

}  // namespace fleetwave::kubesim
