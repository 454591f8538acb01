// Command-line arguments of one subcommand: flags with values, boolean switches, and
// positional arguments. Each subcommand declares which flags take a value.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fleetwave::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // "--config" -> ["a.yaml"]
  std::set<std::string> switches;                          // "--watch"

  std::optional<std::string> Get(const std::string& flag) const;
  bool Has(const std::string& flag) const { return switches.count(flag) > 0; }
};

// Parses argv[first..]. `with_value` lists the flags that take a value ("-f", "--now"); both
// "--now T" and "--now=T" are accepted. Returns nullopt and sets `*error` for an unknown flag
// or a missing value.
std::optional<Args> ParseArgs(const std::vector<std::string>& argv,
                              const std::set<std::string>& with_value,
                              const std::set<std::string>& switches, std::string* error);

}  // namespace fleetwave::cli
