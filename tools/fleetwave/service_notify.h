// The daemon's side of systemd's service notification protocol (sd_notify(3)), for
// fleetwave.service's Type=notify. ServiceLifecycle turns the daemon's events into the protocol's
// messages:
//   READY=1        once the coordinator published the first load AND the API listens;
//   STATUS=...     the counts of ApplicationSets, Applications and clusters up, on change
//                  (with leader election after "leader; " or "standby, ID leads; ");
//   RELOADING=1    on SIGHUP, then READY=1 when the reload that covers that SIGHUP finished
//                  (systemd 252 has no Type=notify-reload: `systemctl reload` waits for it);
//   WATCHDOG=1     only when the heartbeat's ping came back through the actor system
//                  (service_heartbeat.h), so a wedged scheduler stops the pings;
//   STOPPING=1     on SIGTERM/SIGINT.
// All of it only when NOTIFY_SOCKET is set: a plain `fleetwave run` sends nothing.
// tests/systemd/service_notify_test.cc pins the message sequence; notify_socket_test.py pins it
// against the real binary and a fake NOTIFY_SOCKET.
//
// Thread-safety: every ServiceLifecycle method may be called from any thread (the coordinator's
// callbacks run on actor threads, signals on the main thread, the heartbeat on its own).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace fleetwave::cli {

// What STATUS= reports.
struct ServiceCounts {
  size_t appsets = 0;
  size_t applications = 0;
  size_t clusters = 0;
  size_t clusters_up = 0;
};

// "2 ApplicationSets, 14 Applications, 3/4 clusters up" (+ "; last reload failed"), after
// "<role>; " when `role` is set (leader election: "leader", "standby, host-b leads").
std::string StatusText(const ServiceCounts& counts, bool last_reload_failed,
                       const std::string& role = "");

// How the service manager is reached, read once from the environment at startup.
struct NotifyEnvironment {
  bool enabled = false;  // NOTIFY_SOCKET is set
  // WATCHDOG_USEC (for this process, per WATCHDOG_PID when set); nullopt: no watchdog.
  std::optional<std::chrono::microseconds> watchdog;
};
NotifyEnvironment ReadNotifyEnvironment();

// Sends one notification through sd_notify(3); false when it could not be sent.
bool SdNotify(const std::string& state);

class ServiceLifecycle {
 public:
  // `send` delivers one notification (SdNotify in the daemon, a recorder in tests); it is
  // called with the lifecycle's lock held, so notifications keep their order.
  explicit ServiceLifecycle(std::function<void(const std::string&)> send);

  // The coordinator published its first load (Publisher::ready).
  void CoordinatorReady();
  // The API listens: the daemon is fully up.
  void Started();
  // SIGHUP; `ticket` is the number the reload request carries to the coordinator.
  void ReloadRequested(uint64_t ticket);
  // The coordinator finished a load that covered every request up to `ticket`.
  void Reloaded(uint64_t ticket, bool ok);
  // The heartbeat's ping was answered.
  void Alive();
  // Sends STATUS= when the text changed since the last one sent.
  void UpdateStatus(const ServiceCounts& counts);
  // Leader election: the role STATUS= starts with; a standby is ready (READY=1) once it knows
  // it is one, as it never starts a coordinator to report CoordinatorReady.
  void SetRole(const std::string& role);
  void Stopping();

 private:
  void SendStatusLocked(const std::string& prefix);

  std::mutex mu_;
  std::function<void(const std::string&)> send_;
  bool coordinator_ready_ = false;
  bool started_ = false;
  bool ready_sent_ = false;
  bool stopping_ = false;
  uint64_t reload_pending_ = 0;  // the SIGHUP ticket awaiting READY=1; 0: none
  bool last_reload_failed_ = false;
  ServiceCounts counts_;
  std::string role_;
  std::string last_status_;
};

}  // namespace fleetwave::cli
