#include "tools/fleetwave/input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fleetwave::cli {

bool ReadInput(const std::string& path, std::string& contents, std::string& error) {
  std::ostringstream buf;
  if (path == "-") {
    buf << std::cin.rdbuf();
    contents = buf.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  buf << in.rdbuf();
  contents = buf.str();
  return true;
}

}  // namespace fleetwave::cli
