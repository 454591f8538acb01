// Label and field selectors as the list and watch verbs accept them
// (`labelSelector=app=web,tier!=db,env in (a,b),!canary`, `fieldSelector=metadata.name=x`).
// Parsing returns an error string instead of throwing. Plain values; no state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

struct Requirement {
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  // An empty text selects everything.
  static std::optional<LabelSelector> Parse(std::string_view text, std::string* error);
  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool Matches(const nlohmann::json& object) const;  // uses metadata.labels
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

// Field selectors: only metadata.name and metadata.namespace, with = / == / !=.
class FieldSelector {
 public:
  static std::optional<FieldSelector> Parse(std::string_view text, std::string* error);
  bool Matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace fleetwave::kubesim
