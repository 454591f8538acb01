#include "tools/kubesim/faults.h"

namespace fleetwave::kubesim {

namespace {

nlohmann::json StatusBody(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

}  // namespace

std::string FaultTable::Merge(int cluster, const nlohmann::json& body) {
  ClusterFaults f = faults_.count(cluster) ? faults_[cluster] : ClusterFaults{};
  auto flag = [&](const char* key, bool* out) -> bool {
    if (!body.contains(key)) return true;
    if (!body[key].is_boolean()) return false;
    *out = body[key].get<bool>();
    return true;
  };
  auto integer = [&](const char* key, int* out, int lo, int hi) -> bool {
    if (!body.contains(key)) return true;
    if (!body[key].is_number_integer()) return false;
    long long v = body[key].get<long long>();
    if (v < lo || v > hi) return false;
    *out = static_cast<int>(v);
    return true;
  };
  auto rate = [&](const char* key, double* out) -> bool {
    if (!body.contains(key)) return true;
    if (!body[key].is_number()) return false;
    double v = body[key].get<double>();
    if (v < 0 || v > 1) return false;
    *out = v;
    return true;
  };
  if (!flag("down", &f.down)) return "down must be a boolean";
  if (!flag("hang", &f.hang)) return "hang must be a boolean";
  if (!integer("latencyMs", &f.latency_ms, 0, 3600000)) return "latencyMs must be 0..3600000";
  if (!rate("errorRate", &f.error_rate)) return "errorRate must be a number in [0, 1]";
  if (!integer("errorCode", &f.error_code, 500, 599) ||
      (f.error_code != 500 && f.error_code != 503))
    return "errorCode must be 500 or 503";
  if (!rate("throttleRate", &f.throttle_rate)) return "throttleRate must be a number in [0, 1]";
  if (!integer("retryAfterSeconds", &f.retry_after_seconds, 0, 86400))
    return "retryAfterSeconds must be 0..86400";
  if (!integer("watchDelayMs", &f.watch_delay_ms, 0, 3600000))
    return "watchDelayMs must be 0..3600000";
  faults_[cluster] = f;
  return "";
}

const ClusterFaults* FaultTable::Find(int cluster) const {
  auto it = faults_.find(cluster);
  return it == faults_.end() ? nullptr : &it->second;
}

bool FaultTable::Down(int cluster) const {
  const ClusterFaults* f = Find(cluster);
  return f && f->down;
}

int FaultTable::WatchDelayMs(int cluster) const {
  const ClusterFaults* f = Find(cluster);
  return f ? f->watch_delay_ms : 0;
}

FaultAction FaultTable::Decide(int cluster) {
  FaultAction a;
  const ClusterFaults* f = Find(cluster);
  if (!f) return a;
  a.latency_ms = f->latency_ms;
  if (f->down) {
    a.kind = FaultAction::kReset;
    return a;
  }
  if (f->hang) {
    a.kind = FaultAction::kHang;
    return a;
  }
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (f->throttle_rate > 0 && u(rng_) < f->throttle_rate) {
    a.kind = FaultAction::kRespond;
    a.status = 429;
    a.retry_after = f->retry_after_seconds;
    nlohmann::json status =
        StatusBody(429, "TooManyRequests",
                   "the server has received too many requests and has asked us to try again later");
    status["details"] = {{"retryAfterSeconds", f->retry_after_seconds}};
    a.body = status.dump();
    return a;
  }
  if (f->error_rate > 0 && u(rng_) < f->error_rate) {
    a.kind = FaultAction::kRespond;
    a.status = f->error_code;
    a.body = (f->error_code == 503 ? StatusBody(503, "ServiceUnavailable",
                                                "the server is currently unable to "
                                                "handle the request")
                                   : StatusBody(500, "InternalError",
                                                "Internal error occurred: injected by kubesim"))
                 .dump();
  }
  return a;
}

nlohmann::json FaultTable::ToJson(int cluster) const {
  const ClusterFaults* f = Find(cluster);
  ClusterFaults d = f ? *f : ClusterFaults{};
  return {{"cluster", "sim-" + std::to_string(cluster)},
          {"down", d.down},
          {"hang", d.hang},
          {"latencyMs", d.latency_ms},
          {"errorRate", d.error_rate},
          {"errorCode", d.error_code},
          {"throttleRate", d.throttle_rate},
          {"retryAfterSeconds", d.retry_after_seconds},
          {"watchDelayMs", d.watch_delay_ms}};
}

}  // namespace fleetwave::kubesim
