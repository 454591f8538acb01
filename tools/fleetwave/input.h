// Reading user-named inputs for the offline subcommands ("-" is standard input).
#pragma once

#include <string>

namespace fleetwave::cli {

// Reads a whole file, or standard input for "-". On failure returns false and sets `error`
// to "<path>: <reason>".
bool ReadInput(const std::string& path, std::string& contents, std::string& error);

}  // namespace fleetwave::cli
