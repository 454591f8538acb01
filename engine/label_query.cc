#include "engine/label_query.h"

#include <cctype>

namespace fleetwave::engine {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside parentheses ("a in (x,y),b" -> two terms).
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

bool ValidKey(std::string_view k) {
  if (k.empty() || k.size() > 316) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
          c == '/'))
      return false;
  return true;
}

// Finds a word operator (" in ", " notin ") between key and "(...)".
bool ParseSetTerm(std::string_view term, SelectorRequirement* r, std::string* error) {
  std::size_t open = term.find('(');
  std::size_t close = term.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    *error = "unable to parse requirement: " + std::string(term);
    return false;
  }
  std::string_view head = Trim(term.substr(0, open));
  std::size_t sp = head.find_last_of(" \t");
  if (sp == std::string_view::npos) {
    *error = "unable to parse requirement: " + std::string(term);
    return false;
  }
  std::string_view key = Trim(head.substr(0, sp));
  std::string_view op = Trim(head.substr(sp + 1));
  if (op == "in") {
    r->op = SelectorRequirement::Op::kIn;
  } else if (op == "notin") {
    r->op = SelectorRequirement::Op::kNotIn;
  } else {
    *error = "unknown operator " + std::string(op);
    return false;
  }
  if (!ValidKey(key)) {
    *error = "invalid label key \"" + std::string(key) + "\"";
    return false;
  }
  r->key = std::string(key);
  std::string_view inner = term.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= inner.size(); ++i) {
    if (i == inner.size() || inner[i] == ',') {
      std::string_view v = Trim(inner.substr(start, i - start));
      if (!v.empty()) r->values.emplace_back(v);
      start = i + 1;
    }
  }
  return true;
}

bool ParseTerm(std::string_view term, bool allow_sets, SelectorRequirement* r, std::string* error) {
  term = Trim(term);
  if (term.empty()) {
    *error = "empty requirement";
    return false;
  }
  if (allow_sets && term.find('(') != std::string_view::npos) return ParseSetTerm(term, r, error);
  std::size_t pos;
  if ((pos = term.find("!=")) != std::string_view::npos) {
    r->op = SelectorRequirement::Op::kNotEquals;
    r->key = std::string(Trim(term.substr(0, pos)));
    r->values = {std::string(Trim(term.substr(pos + 2)))};
  } else if ((pos = term.find("==")) != std::string_view::npos) {
    r->op = SelectorRequirement::Op::kEquals;
    r->key = std::string(Trim(term.substr(0, pos)));
    r->values = {std::string(Trim(term.substr(pos + 2)))};
  } else if ((pos = term.find('=')) != std::string_view::npos) {
    r->op = SelectorRequirement::Op::kEquals;
    r->key = std::string(Trim(term.substr(0, pos)));
    r->values = {std::string(Trim(term.substr(pos + 1)))};
  } else if (allow_sets && term.front() == '!') {
    r->op = SelectorRequirement::Op::kDoesNotExist;
    r->key = std::string(Trim(term.substr(1)));
  } else if (allow_sets) {
    r->op = SelectorRequirement::Op::kExists;
    r->key = std::string(term);
  } else {
    *error = "invalid selector: '" + std::string(term) + "'; can't understand '" +
             std::string(term) + "'";
    return false;
  }
  if (!ValidKey(r->key)) {
    *error = "invalid key \"" + r->key + "\"";
    return false;
  }
  return true;
}

bool Evaluate(const SelectorRequirement& r, const std::string* value) {
  switch (r.op) {
    case SelectorRequirement::Op::kEquals:
      return value && *value == r.values[0];
    case SelectorRequirement::Op::kNotEquals:
      return !value || *value != r.values[0];
    case SelectorRequirement::Op::kIn:
      if (!value) return false;
      for (const auto& v : r.values)
        if (v == *value) return true;
      return false;
    case SelectorRequirement::Op::kNotIn:
      if (!value) return true;
      for (const auto& v : r.values)
        if (v == *value) return false;
      return true;
    case SelectorRequirement::Op::kExists:
      return value != nullptr;
    case SelectorRequirement::Op::kDoesNotExist:
      return value == nullptr;
  }
  return false;
}

}  // namespace

std::optional<LabelQuery> LabelQuery::Parse(std::string_view text, std::string* error) {
  LabelQuery s;
  if (Trim(text).empty()) return s;
  for (std::string_view term : SplitTerms(text)) {
    SelectorRequirement r;
    if (!ParseTerm(term, true, &r, error)) return std::nullopt;
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool LabelQuery::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& r : requirements_) {
    auto it = labels.find(r.key);
    if (!Evaluate(r, it == labels.end() ? nullptr : &it->second)) return false;
  }
  return true;
}

bool LabelQuery::Matches(const nlohmann::json& object) const {
  if (requirements_.empty()) return true;
  std::map<std::string, std::string> labels;
  auto md = object.find("metadata");
  if (md != object.end() && md->is_object()) {
    auto ls = md->find("labels");
    if (ls != md->end() && ls->is_object())
      for (auto it = ls->begin(); it != ls->end(); ++it)
        if (it.value().is_string()) labels[it.key()] = it.value().get<std::string>();
  }
  return Matches(labels);
}

std::optional<FieldQuery> FieldQuery::Parse(std::string_view text, std::string* error) {
  FieldQuery s;
  if (Trim(text).empty()) return s;
  for (std::string_view term : SplitTerms(text)) {
    SelectorRequirement r;
    if (!ParseTerm(term, false, &r, error)) return std::nullopt;
    if (r.key != "metadata.name" && r.key != "metadata.namespace") {
      *error = "field label not supported: " + r.key;
      return std::nullopt;
    }
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool FieldQuery::Matches(const nlohmann::json& object) const {
  for (const auto& r : requirements_) {
    std::string field = r.key.substr(std::string("metadata.").size());
    std::string value;
    auto md = object.find("metadata");
    if (md != object.end() && md->contains(field) && (*md)[field].is_string())
      value = (*md)[field].get<std::string>();
    if (!Evaluate(r, &value)) return false;
  }
  return true;
}

}  // namespace fleetwave::engine
