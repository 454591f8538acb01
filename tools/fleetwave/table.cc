#include "tools/fleetwave/table.h"

#include <algorithm>
#include <optional>

namespace fleetwave::cli {
namespace {

constexpr size_t kGap = 3;  // kubectl's tabwriter padding

// Display columns of plain text: UTF-8 continuation bytes take none.
size_t Columns(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::vector<size_t> Widths(const std::vector<std::string>& headers, const std::vector<Row>& rows) {
  std::vector<size_t> widths(headers.size(), 0);
  for (size_t i = 0; i < headers.size(); ++i) widths[i] = Columns(headers[i]);
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], Columns(row[i].text));
    }
  }
  return widths;
}

std::string Line(const std::vector<Cell>& cells, const std::vector<size_t>& widths, bool color) {
  std::string out;
  for (size_t i = 0; i < widths.size(); ++i) {
    const Cell empty;
    const Cell& cell = i < cells.size() ? cells[i] : empty;
    const bool styled = color && cell.style != nullptr && !cell.text.empty();
    if (styled) out += std::string("\x1b[") + cell.style + "m";
    out += cell.text;
    if (styled) out += "\x1b[0m";
    if (i + 1 < widths.size()) out.append(widths[i] - Columns(cell.text) + kGap, ' ');
  }
  // A row whose last cells are empty leaves no trailing blanks.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

std::vector<Cell> HeaderCells(const std::vector<std::string>& headers) {
  std::vector<Cell> cells;
  for (const auto& h : headers) cells.push_back(Cell{h});
  return cells;
}

}  // namespace

std::string RenderTable(const std::vector<std::string>& headers, const std::vector<Row>& rows,
                        bool color) {
  const std::vector<size_t> widths = Widths(headers, rows);
  std::string out = Line(HeaderCells(headers), widths, false);
  for (const Row& row : rows) out += Line(row, widths, color);
  return out;
}

std::string RenderRow(const std::vector<std::string>& headers, const std::vector<Row>& rows,
                      size_t index, bool color) {
  if (index >= rows.size()) return "";
  return Line(rows[index], Widths(headers, rows), color);
}

std::string Age(const std::string& since, engine::Time now) {
  const std::optional<engine::Time> t = engine::ParseRfc3339(since);
  if (!t) return "<unknown>";
  // kubectl's HumanDuration (k8s.io/apimachinery duration.HumanDuration), rule for rule.
  const long long seconds = std::chrono::duration_cast<std::chrono::seconds>(now - *t).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    const long long s = seconds % 60;
    return std::to_string(minutes) + "m" + (s == 0 ? "" : std::to_string(s) + "s");
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) {
    const long long m = minutes % 60;
    return std::to_string(hours) + "h" + (m == 0 ? "" : std::to_string(m) + "m");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const long long h = hours % 24;
    return std::to_string(hours / 24) + "d" + (h == 0 ? "" : std::to_string(h) + "h");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const long long d = (hours / 24) % 365;
    return std::to_string(hours / 24 / 365) + "y" + (d == 0 ? "" : std::to_string(d) + "d");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string ProgressBar(int done, int total, int width) {
  int filled = width;
  if (total > 0) filled = std::clamp(done, 0, total) * width / total;
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(width - filled), '-') + "]";
}

std::string FitWidth(const std::string& line, size_t width) {
  if (width == 0) return line;
  std::string out;
  size_t columns = 0;
  bool styled = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b) {
      // An escape sequence (CSI ... letter) takes no column.
      const size_t end = line.find_first_of("ABCDEFGHJKSTfmnsu", i + 1);
      const size_t stop = end == std::string::npos ? line.size() - 1 : end;
      const std::string seq = line.substr(i, stop - i + 1);
      styled = seq != "\x1b[0m" && seq.back() == 'm';
      out += seq;
      i = stop;
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      if (columns == width) break;
      ++columns;
    }
    out += line[i];
  }
  if (styled) out += "\x1b[0m";
  return out;
}

}  // namespace fleetwave::cli
