#include "tools/fleetwave/input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fleetwave::cli {

std::string InputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<std::string> ReadInput(const std::string& path, std::string* error) {
  std::ostringstream buf;
  if (path == "-") {
    buf << std::cin.rdbuf();
    return buf.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  buf << in.rdbuf();
  return buf.str();
}

engine::LoadedDocuments ReadDocuments(const std::string& path) {
  std::string error;
  std::optional<std::string> text = ReadInput(path, &error);
  if (!text) {
    engine::LoadedDocuments failed;
    failed.issues.push_back({"", {}, "", error});
    return failed;
  }
  return engine::LoadYamlDocuments(*text, InputName(path));
}

}  // namespace fleetwave::cli
