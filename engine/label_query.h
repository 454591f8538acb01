// Label and field selectors as Kubernetes list and watch requests write them
// (`labelSelector=app=web,tier!=db,env in (a,b),!canary`, `fieldSelector=metadata.name=x`):
// kubesim's list verbs and the daemon's API filters parse the same text the same way. Parsing
// returns an error string instead of throwing. Plain values; no state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetwave::engine {

struct SelectorRequirement {
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op;
  std::vector<std::string> values;
};

class LabelQuery {
 public:
  // An empty text selects everything.
  static std::optional<LabelQuery> Parse(std::string_view text, std::string* error);
  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool Matches(const nlohmann::json& object) const;  // uses metadata.labels
  bool empty() const { return requirements_.empty(); }
  const std::vector<SelectorRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<SelectorRequirement> requirements_;
};

// Field selectors: only metadata.name and metadata.namespace, with = / == / !=.
class FieldQuery {
 public:
  static std::optional<FieldQuery> Parse(std::string_view text, std::string* error);
  bool Matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<SelectorRequirement> requirements_;
};

}  // namespace fleetwave::engine
