// Percent-encoding as URLs carry it, for the servers' request targets (the API's paths and
// filters, kubesim's queries): one decoder, so `%2F` and `+` mean the same everywhere.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetwave::engine {

// Decodes %XX escapes (an invalid escape stays as written); `plus_as_space` for query
// components (application/x-www-form-urlencoded), never for paths.
std::string PercentDecode(std::string_view text, bool plus_as_space);

// `a=1&b=x%20y&flag` -> {{"a","1"},{"b","x y"},{"flag",""}}, in order, duplicates kept;
// empty parts (`a=1&&b=2`) are skipped.
std::vector<std::pair<std::string, std::string>> ParseQueryString(std::string_view query);

}  // namespace fleetwave::engine
