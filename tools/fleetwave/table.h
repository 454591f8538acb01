// kubectl-style text tables and ages for the `fleetwave get` commands, as pure functions (no
// I/O, no clock: `now` is an argument), so every layout is pinned by a table test
// (tests/fleetwave/table_test.cc).
#pragma once

#include <string>
#include <vector>

#include "engine/time.h"

namespace fleetwave::cli {

// A cell and how to emphasise it on a colour terminal (never on a pipe).
struct Cell {
  std::string text;
  const char* style = nullptr;  // an SGR sequence ("1;36"), or nullptr
};
using Row = std::vector<Cell>;

// Columns left-aligned and separated by three spaces, as kubectl's tabwriter lays them out;
// the last column is not padded. Headers are upper-case as given. With `color`, a styled
// cell's text is wrapped in its SGR sequence (padding stays outside the escape codes, so
// columns line up either way). Every line ends with "\n".
std::string RenderTable(const std::vector<std::string>& headers, const std::vector<Row>& rows,
                        bool color);

// One row laid out with the widths RenderTable would give it among `rows` (for the
// line-per-change output of a watch on a pipe, which prints rows without re-printing headers).
std::string RenderRow(const std::vector<std::string>& headers, const std::vector<Row>& rows,
                      size_t index, bool color);

// kubectl's age ("45s", "3m12s", "5h", "2d3h", "400d", "3y20d"): the time from `since` to
// `now`; "<unknown>" when `since` is absent (empty or not RFC 3339).
std::string Age(const std::string& since, engine::Time now);

// "[####------]": `done` of `total` as a bar of `width` cells (empty total: all filled).
std::string ProgressBar(int done, int total, int width);

// Cuts `line` to `width` display columns (0 = no limit), skipping escape sequences when counting
// and closing any open style, so a redraw never wraps on a narrow terminal.
std::string FitWidth(const std::string& line, size_t width);

}  // namespace fleetwave::cli
