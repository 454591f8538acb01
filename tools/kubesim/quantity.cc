#include "tools/kubesim/quantity.h"

#include <cstdint>
#include <string_view>

namespace fleetwave::kubesim {
namespace {

// value = mantissa * 10^exponent10 * 2^exponent2, mantissa an integer (sign separate).
struct Parsed {
  bool negative = false;
  unsigned __int128 mantissa = 0;
  int exponent10 = 0;
  int exponent2 = 0;
  enum Format { kDecimalSI, kBinarySI, kDecimalExponent } format = kDecimalSI;
};

constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 100;

std::optional<Parsed> Parse(std::string_view s) {
  Parsed p;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) p.negative = s[i++] == '-';
  bool digits = false, point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (p.mantissa > kLimit) return std::nullopt;  // beyond what kubesim represents
      p.mantissa = p.mantissa * 10 + static_cast<unsigned>(c - '0');
      if (point) --p.exponent10;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  static constexpr struct {
    std::string_view suffix;
    int exponent2, exponent10;
  } kSuffixes[] = {{"Ki", 10, 0}, {"Mi", 20, 0}, {"Gi", 30, 0}, {"Ti", 40, 0},
                   {"Pi", 50, 0}, {"Ei", 60, 0}, {"n", 0, -9},  {"u", 0, -6},
                   {"m", 0, -3},  {"", 0, 0},    {"k", 0, 3},   {"M", 0, 6},
                   {"G", 0, 9},   {"T", 0, 12},  {"P", 0, 15},  {"E", 0, 18}};
  for (const auto& k : kSuffixes) {
    if (suffix != k.suffix) continue;
    p.exponent2 = k.exponent2;
    p.exponent10 += k.exponent10;
    if (k.exponent2 != 0) p.format = Parsed::kBinarySI;
    return p;
  }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  size_t j = 1;
  bool negative_exponent = false;
  if (suffix[j] == '+' || suffix[j] == '-') negative_exponent = suffix[j++] == '-';
  if (j >= suffix.size() || suffix.size() - j > 3) return std::nullopt;
  int exponent = 0;
  for (; j < suffix.size(); ++j) {
    if (suffix[j] < '0' || suffix[j] > '9') return std::nullopt;
    exponent = exponent * 10 + (suffix[j] - '0');
  }
  p.exponent10 += negative_exponent ? -exponent : exponent;
  p.format = Parsed::kDecimalExponent;
  return p;
}

std::string ToString(unsigned __int128 n) {
  if (n == 0) return "0";
  std::string out;
  while (n > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(n % 10)));
    n /= 10;
  }
  return out;
}

// Decimal: the largest exponent that is a multiple of 3 and keeps the mantissa whole.
std::optional<std::string> Decimal(Parsed p) {
  if (p.mantissa == 0) return "0";
  while (p.mantissa % 10 == 0) {
    p.mantissa /= 10;
    ++p.exponent10;
  }
  int e = p.exponent10 >= 0 ? p.exponent10 / 3 * 3 : -((-p.exponent10 + 2) / 3 * 3);
  for (int k = e; k < p.exponent10; ++k) {
    if (p.mantissa > kLimit) return std::nullopt;
    p.mantissa *= 10;
  }
  if (e < -9) return std::nullopt;  // below the nano precision kubesim keeps: leave as written
  const std::string sign = p.negative ? "-" : "";
  if (p.format == Parsed::kDecimalExponent) {
    return sign + ToString(p.mantissa) + (e == 0 ? "" : "e" + std::to_string(e));
  }
  static constexpr struct {
    int exponent;
    const char* suffix;
  } kSi[] = {{-9, "n"}, {-6, "u"}, {-3, "m"}, {0, ""},   {3, "k"},
             {6, "M"},  {9, "G"},  {12, "T"}, {15, "P"}, {18, "E"}};
  for (const auto& s : kSi) {
    if (s.exponent == e) return sign + ToString(p.mantissa) + s.suffix;
  }
  // Beyond exa: keep the exponent in the mantissa.
  while (e > 18) {
    if (p.mantissa > kLimit) return std::nullopt;
    p.mantissa *= 10;
    --e;
  }
  return sign + ToString(p.mantissa) + "E";
}

std::optional<std::string> Canonical(const Parsed& parsed) {
  if (parsed.format != Parsed::kBinarySI) return Decimal(parsed);
  // Binary: the whole number of bytes with the largest binary suffix dividing it; a value that
  // is not whole falls back to decimal, as the API server does.
  Parsed p = parsed;
  unsigned __int128 value = p.mantissa;
  for (int k = 0; k < p.exponent2; ++k) {
    if (value > kLimit) return std::nullopt;
    value <<= 1;
  }
  bool whole = true;
  for (int k = p.exponent10; k < 0; ++k) {
    if (value % 10 != 0) whole = false;
    value /= 10;
  }
  if (!whole) {
    Parsed d = parsed;
    d.format = Parsed::kDecimalSI;
    d.mantissa = parsed.mantissa;
    for (int k = 0; k < parsed.exponent2; ++k) d.mantissa <<= 1;
    return Decimal(d);
  }
  if (value == 0) return "0";
  static constexpr const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int k = 0;
  while (k < 6 && value % 1024 == 0) {
    value /= 1024;
    ++k;
  }
  return (p.negative ? "-" : "") + ToString(value) + kBinary[k];
}

void CanonicalizeMap(Json& map) {
  if (!map.is_object()) return;
  for (auto& value : map) {
    if (auto canonical = CanonicalQuantity(value)) value = *canonical;
  }
}

void CanonicalizeContainers(Json& pod_spec, const char* field) {
  auto list = pod_spec.find(field);
  if (list == pod_spec.end() || !list->is_array()) return;
  for (auto& c : *list) {
    if (!c.is_object()) continue;
    auto resources = c.find("resources");
    if (resources == c.end() || !resources->is_object()) continue;
    for (const char* m : {"limits", "requests"}) {
      if (auto it = resources->find(m); it != resources->end()) CanonicalizeMap(*it);
    }
  }
}

}  // namespace

std::optional<std::string> CanonicalQuantity(const Json& value) {
  std::string text;
  if (value.is_number_integer()) {
    text = value.dump();
  } else if (value.is_number_float()) {
    text = value.dump();  // shortest round-trip form: 0.5, 1.5e-05
  } else if (value.is_string()) {
    text = value.get<std::string>();
  } else {
    return std::nullopt;
  }
  const auto parsed = Parse(text);
  if (!parsed) return std::nullopt;
  return Canonical(*parsed);
}

void CanonicalizePodQuantities(Json& pod_spec) {
  if (!pod_spec.is_object()) return;
  CanonicalizeContainers(pod_spec, "containers");
  CanonicalizeContainers(pod_spec, "initContainers");
  auto volumes = pod_spec.find("volumes");
  if (volumes == pod_spec.end() || !volumes->is_array()) return;
  for (auto& v : *volumes) {
    if (!v.is_object()) continue;
    auto empty_dir = v.find("emptyDir");
    if (empty_dir == v.end() || !empty_dir->is_object()) continue;
    if (auto limit = empty_dir->find("sizeLimit"); limit != empty_dir->end()) {
      if (auto canonical = CanonicalQuantity(*limit)) *limit = *canonical;
    }
  }
}

}  // namespace fleetwave::kubesim
