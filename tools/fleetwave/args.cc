#include "tools/fleetwave/args.h"

namespace fleetwave::cli {

std::optional<std::string> Args::Get(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::optional<Args> ParseArgs(const std::vector<std::string>& argv,
                              const std::set<std::string>& with_value,
                              const std::set<std::string>& switches, std::string* error) {
  Args args;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-" || a.empty() || a[0] != '-') {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      for (++i; i < argv.size(); ++i) args.positional.push_back(argv[i]);
      break;
    }
    std::string flag = a;
    std::optional<std::string> inline_value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      flag = a.substr(0, eq);
      inline_value = a.substr(eq + 1);
    }
    if (with_value.count(flag)) {
      if (inline_value) {
        args.values[flag].push_back(*inline_value);
      } else if (i + 1 < argv.size()) {
        args.values[flag].push_back(argv[++i]);
      } else {
        *error = "flag " + flag + " needs a value";
        return std::nullopt;
      }
    } else if (switches.count(flag) && !inline_value) {
      args.switches.insert(flag);
    } else {
      *error = "unknown flag " + flag;
      return std::nullopt;
    }
  }
  return args;
}

}  // namespace fleetwave::cli
