#include "tools/fleetwave/service_notify.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>

namespace fleetwave::cli {

std::string StatusText(const ServiceCounts& counts, bool last_reload_failed,
                       const std::string& role) {
  auto plural = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string text = (role.empty() ? std::string() : role + "; ") +
                     plural(counts.appsets, "ApplicationSet", "ApplicationSets") + ", " +
                     plural(counts.applications, "Application", "Applications") + ", " +
                     std::to_string(counts.clusters_up) + "/" + std::to_string(counts.clusters) +
                     " clusters up";
  if (last_reload_failed) text += "; last reload failed (see the log)";
  return text;
}

NotifyEnvironment ReadNotifyEnvironment() {
  NotifyEnvironment env;
  const char* socket = std::getenv("NOTIFY_SOCKET");
  env.enabled = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID, if set, is this process.
  if (env.enabled && sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    env.watchdog = std::chrono::microseconds(usec);
  }
  return env;
}

bool SdNotify(const std::string& state) { return sd_notify(0, state.c_str()) > 0; }

ServiceLifecycle::ServiceLifecycle(std::function<void(const std::string&)> send)
    : send_(std::move(send)) {}

void ServiceLifecycle::CoordinatorReady() {
  std::lock_guard<std::mutex> lock(mu_);
  coordinator_ready_ = true;
  if (started_ && !ready_sent_ && !stopping_) {
    ready_sent_ = true;
    SendStatusLocked("READY=1\n");
  }
}

void ServiceLifecycle::SetRole(const std::string& role) {
  std::lock_guard<std::mutex> lock(mu_);
  role_ = role;
  if (stopping_) return;
  if (role.rfind("standby", 0) == 0) coordinator_ready_ = true;
  if (started_ && coordinator_ready_ && !ready_sent_) {
    ready_sent_ = true;
    SendStatusLocked("READY=1\n");
    return;
  }
  if (ready_sent_) SendStatusLocked("");
}

void ServiceLifecycle::Started() {
  std::lock_guard<std::mutex> lock(mu_);
  started_ = true;
  if (coordinator_ready_ && !ready_sent_ && !stopping_) {
    ready_sent_ = true;
    SendStatusLocked("READY=1\n");
  }
}

void ServiceLifecycle::ReloadRequested(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  reload_pending_ = ticket;
  send_("RELOADING=1\nSTATUS=reloading");
  last_status_ = "reloading";
}

void ServiceLifecycle::Reloaded(uint64_t ticket, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  last_reload_failed_ = !ok;
  if (stopping_) return;
  // A load that started before the SIGHUP (a directory change) does not answer it.
  if (reload_pending_ != 0 && ticket >= reload_pending_) {
    reload_pending_ = 0;
    SendStatusLocked("READY=1\n");
    return;
  }
  if (reload_pending_ == 0) SendStatusLocked("");
}

void ServiceLifecycle::Alive() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopping_) send_("WATCHDOG=1");
}

void ServiceLifecycle::UpdateStatus(const ServiceCounts& counts) {
  std::lock_guard<std::mutex> lock(mu_);
  counts_ = counts;
  // While reloading, STATUS says so until READY=1.
  if (!ready_sent_ || stopping_ || reload_pending_ != 0) return;
  SendStatusLocked("");
}

void ServiceLifecycle::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  stopping_ = true;
  send_("STOPPING=1\nSTATUS=stopping");
}

void ServiceLifecycle::SendStatusLocked(const std::string& prefix) {
  const std::string status = StatusText(counts_, last_reload_failed_, role_);
  if (prefix.empty() && status == last_status_) return;
  last_status_ = status;
  send_(prefix + "STATUS=" + status);
}

}  // namespace fleetwave::cli
