#include "engine/rollingsync/analysis.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "engine/config.h"

namespace fleetwave::engine {
namespace {

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// A whole-string finite number ("0.5", "-3", "1e3"), else nullopt.
std::optional<double> Number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string FormatValue(double v) {
  std::string s = std::to_string(v);
  // Trailing zeros say nothing: "0.730000" -> "0.73", "2.000000" -> "2".
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

const Json* Member(const Json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

std::string Field(const std::string& path, const char* key) { return path + "." + key; }

// A positive whole count (count, failureLimit >= 0 when `zero_ok`).
std::optional<long long> Count(const Json& o, const char* key, const std::string& path,
                               bool zero_ok, Issues& issues) {
  const Json* v = Member(o, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) {
    issues.push_back({"", {}, Field(path, key), "wrong type: expected an integer"});
    return std::nullopt;
  }
  const long long n = v->get<long long>();
  if (n < (zero_ok ? 0 : 1)) {
    issues.push_back(
        {"", {}, Field(path, key), zero_ok ? "must be 0 or more" : "must be at least 1"});
    return std::nullopt;
  }
  return n;
}

}  // namespace

bool SuccessCondition::Holds(double v) const {
  switch (op) {
    case Op::kLess:
      return v < threshold;
    case Op::kLessOrEqual:
      return v <= threshold;
    case Op::kGreater:
      return v > threshold;
    case Op::kGreaterOrEqual:
      return v >= threshold;
    case Op::kEqual:
      return v == threshold;
  }
  return false;
}

std::optional<SuccessCondition> ParseSuccessCondition(const std::string& text, std::string* why) {
  const std::string t = Trim(text);
  struct Spelling {
    const char* text;
    SuccessCondition::Op op;
  };
  // Two-character operators first, so "<=" is not read as "<" and "=...".
  static const Spelling kOps[] = {{"<=", SuccessCondition::Op::kLessOrEqual},
                                  {">=", SuccessCondition::Op::kGreaterOrEqual},
                                  {"==", SuccessCondition::Op::kEqual},
                                  {"<", SuccessCondition::Op::kLess},
                                  {">", SuccessCondition::Op::kGreater}};
  for (const auto& s : kOps) {
    const std::string op = s.text;
    if (t.compare(0, op.size(), op) != 0) continue;
    const std::string rest = Trim(t.substr(op.size()));
    const auto value = Number(rest);
    if (!value) {
      *why = "\"" + rest + "\" is not a number";
      return std::nullopt;
    }
    return SuccessCondition{s.op, *value, t};
  }
  *why = "expected an operator (<, <=, >, >=, ==) and a number, e.g. \"< 0.5\"";
  return std::nullopt;
}

std::optional<AnalysisSpec> DecodeAnalysis(const Json& a, const std::string& path, Issues& issues) {
  const size_t before = issues.size();
  if (!a.is_object()) {
    issues.push_back({"", {}, path, "wrong type: expected an object"});
    return std::nullopt;
  }
  static const char* kKnown[] = {"prometheus", "query", "successCondition",
                                 "interval",   "count", "failureLimit"};
  for (auto it = a.begin(); it != a.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) {
      issues.push_back({"",
                        {},
                        path + "." + it.key(),
                        "unknown field (known: prometheus, query, successCondition, interval, "
                        "count, failureLimit)"});
    }
  }
  AnalysisSpec spec;
  auto text = [&](const char* key, bool required) -> std::optional<std::string> {
    const Json* v = Member(a, key);
    if (v == nullptr) {
      if (required) issues.push_back({"", {}, Field(path, key), "required field is missing"});
      return std::nullopt;
    }
    if (!v->is_string() || v->get<std::string>().empty()) {
      issues.push_back({"", {}, Field(path, key), "expected a non-empty string"});
      return std::nullopt;
    }
    return v->get<std::string>();
  };
  if (auto p = text("prometheus", false)) {
    if (p->rfind("http://", 0) != 0 && p->rfind("https://", 0) != 0) {
      issues.push_back(
          {"", {}, Field(path, "prometheus"), "\"" + *p + "\" is not an http:// or https:// URL"});
    }
    spec.prometheus = *p;
  }
  if (auto q = text("query", true)) spec.query = *q;
  if (auto c = text("successCondition", true)) {
    std::string why;
    if (auto parsed = ParseSuccessCondition(*c, &why)) {
      spec.success = *parsed;
    } else {
      issues.push_back({"", {}, Field(path, "successCondition"), "invalid \"" + *c + "\": " + why});
    }
  }
  if (auto i = text("interval", false)) {
    const auto seconds = ParseDurationSeconds(*i);
    if (!seconds || *seconds < 1) {
      issues.push_back({"",
                        {},
                        Field(path, "interval"),
                        "invalid duration \"" + *i + "\" (at least 1s; examples: 30s, 1m)"});
    } else {
      spec.interval_seconds = *seconds;
    }
  }
  if (auto n = Count(a, "count", path, false, issues)) spec.count = *n;
  if (auto n = Count(a, "failureLimit", path, true, issues)) spec.failure_limit = *n;
  if (issues.size() != before) return std::nullopt;
  return spec;
}

AnalysisMeasurement Measure(const AnalysisSpec& spec, const PrometheusAnswer& answer, Time at) {
  AnalysisMeasurement m;
  m.at = TruncateToSeconds(at);
  auto fail = [&](std::string why) {
    m.passed = false;
    m.error = std::move(why);
    return m;
  };
  if (!answer.body) return fail("Prometheus did not answer: " + answer.error);
  const Json& body = *answer.body;
  const Json* status = Member(body, "status");
  if (status == nullptr || !status->is_string() || status->get<std::string>() != "success") {
    const Json* error = Member(body, "error");
    return fail("the query failed: " + (error && error->is_string() ? error->get<std::string>()
                                                                    : std::string("no reason")));
  }
  const Json* data = Member(body, "data");
  const Json* type = data ? Member(*data, "resultType") : nullptr;
  const Json* result = data ? Member(*data, "result") : nullptr;
  if (type == nullptr || !type->is_string() || result == nullptr) {
    return fail("Prometheus' answer has no data.resultType or data.result");
  }
  // A sample is [time, "value"] (Prometheus sends the value as a string).
  const Json* sample = nullptr;
  if (*type == "scalar") {
    sample = result;
  } else if (*type == "vector") {
    if (!result->is_array() || result->size() != 1) {
      const size_t n = result->is_array() ? result->size() : 0;
      return fail("the query returned " + std::to_string(n) +
                  " series; exactly one value is needed");
    }
    sample = Member((*result)[0], "value");
  } else {
    return fail("the query returned a " + type->get<std::string>() +
                "; a single value (vector of one series, or scalar) is needed");
  }
  if (sample == nullptr || !sample->is_array() || sample->size() != 2 ||
      !(*sample)[1].is_string()) {
    return fail("Prometheus' answer has no [time, value] sample");
  }
  const std::string text = (*sample)[1].get<std::string>();
  const auto value = Number(text);
  if (!value) return fail("the value \"" + text + "\" is not a finite number");
  m.value = *value;
  m.passed = spec.success.Holds(*value);
  return m;
}

AnalysisVerdict JudgeAnalysis(const AnalysisSpec& spec,
                              const std::vector<AnalysisMeasurement>& measurements, Time now) {
  AnalysisVerdict v;
  std::string failures;
  for (const auto& m : measurements) {
    if (m.passed) {
      ++v.passed;
    } else {
      ++v.failed;
      failures += (failures.empty() ? "" : ", ") +
                  (m.value ? FormatValue(*m.value) : "no value (" + m.error + ")") + " at " +
                  FormatRfc3339(m.at);
    }
    if (v.failed > spec.failure_limit) {
      v.state = AnalysisVerdict::State::kFailed;
      v.message = "analysis failed: " + std::to_string(v.failed) + " measurements did not meet \"" +
                  spec.success.written + "\", more than its failureLimit " +
                  std::to_string(spec.failure_limit) + " allows: " + failures;
      return v;
    }
    if (v.passed >= spec.count) {
      v.state = AnalysisVerdict::State::kPassed;
      return v;
    }
  }
  v.next_at = measurements.empty()
                  ? TruncateToSeconds(now)
                  : measurements.back().at + std::chrono::seconds(spec.interval_seconds);
  return v;
}

Json EncodeStepAnalysisRecord(const StepAnalysisRecord& r) {
  Json list = Json::array();
  for (const auto& m : r.measurements) {
    Json j = {{"time", FormatRfc3339(m.at)}, {"passed", m.passed}};
    if (m.value) j["value"] = *m.value;
    if (!m.error.empty()) j["error"] = m.error;
    list.push_back(std::move(j));
  }
  return {{"step", r.step}, {"measurements", std::move(list)}};
}

StepAnalysisRecord DecodeStepAnalysisRecord(const Json& r, Issues& issues) {
  StepAnalysisRecord out;
  const std::string path = "status.rollout.analysis";
  if (r.is_null()) return out;
  if (!r.is_object()) {
    issues.push_back({"", {}, path, "must be an object"});
    return out;
  }
  if (const Json* step = Member(r, "step")) {
    if (step->is_number_integer()) {
      out.step = step->get<int>();
    } else {
      issues.push_back({"", {}, path + ".step", "wrong type: expected an integer"});
    }
  }
  const Json* list = Member(r, "measurements");
  if (list == nullptr) return out;
  if (!list->is_array()) {
    issues.push_back({"", {}, path + ".measurements", "wrong type: expected a list"});
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& j = (*list)[i];
    const std::string at = path + ".measurements[" + std::to_string(i) + "]";
    const Json* time = Member(j, "time");
    const Json* passed = Member(j, "passed");
    const Json* value = Member(j, "value");
    const Json* error = Member(j, "error");
    std::optional<Time> t;
    if (time && time->is_string()) t = ParseRfc3339(time->get<std::string>());
    if (!t) {
      issues.push_back({"", {}, at + ".time", "not an RFC 3339 time"});
      continue;
    }
    if (passed == nullptr || !passed->is_boolean()) {
      issues.push_back({"", {}, at + ".passed", "wrong type: expected a boolean"});
      continue;
    }
    if (value && !value->is_number()) {
      issues.push_back({"", {}, at + ".value", "wrong type: expected a number"});
      continue;
    }
    if (error && !error->is_string()) {
      issues.push_back({"", {}, at + ".error", "wrong type: expected a string"});
      continue;
    }
    AnalysisMeasurement m;
    m.at = *t;
    m.passed = passed->get<bool>();
    if (value) m.value = value->get<double>();
    if (error) m.error = error->get<std::string>();
    out.measurements.push_back(std::move(m));
  }
  return out;
}

}  // namespace fleetwave::engine
