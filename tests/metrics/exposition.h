// Reading the exposition text back in tests: each sample line as its metric name, labels and
// value, so tests assert on series rather than on substrings.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fleetwave::metrics::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses text format 0.0.4 sample lines (comments skipped). Label values are unescaped.
inline std::vector<Sample> ParseSamples(const std::string& text) {
  std::vector<Sample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name += line[i++];
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        std::string key;
        while (i < line.size() && line[i] != '=') key += line[i++];
        i += 2;  // ="
        std::string value;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < line.size()) {
            ++i;
            value += line[i] == 'n' ? '\n' : line[i];
          } else {
            value += line[i];
          }
          ++i;
        }
        ++i;  // closing quote
        s.labels[key] = value;
        if (i < line.size() && line[i] == ',') ++i;
      }
      ++i;  // }
    }
    s.value = std::stod(line.substr(i));
    out.push_back(std::move(s));
  }
  return out;
}

// The samples of metric `name` whose labels include every pair of `match`.
inline std::vector<Sample> Find(const std::vector<Sample>& samples, const std::string& name,
                                const std::map<std::string, std::string>& match = {}) {
  std::vector<Sample> out;
  for (const auto& s : samples) {
    if (s.name != name) continue;
    bool ok = true;
    for (const auto& [k, v] : match) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) ok = false;
    }
    if (ok) out.push_back(s);
  }
  return out;
}

// Samples carrying label `key` = `value`, any metric.
inline std::vector<Sample> WithLabel(const std::vector<Sample>& samples, const std::string& key,
                                     const std::string& value) {
  std::vector<Sample> out;
  for (const auto& s : samples) {
    auto it = s.labels.find(key);
    if (it != s.labels.end() && it->second == value) out.push_back(s);
  }
  return out;
}

}  // namespace fleetwave::metrics::testing
