// kubesim: a multi-cluster Kubernetes API simulator for fleetwave's tests. Parses flags,
// raises the descriptor limit, binds, writes the kubeconfig, prints one ready line, serves.
#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "tools/kubesim/kubeconfig.h"
#include "tools/kubesim/server.h"
#include "tools/kubesim/simulator.h"
#include "tools/kubesim/tls.h"

namespace {

using namespace fleetwave::kubesim;

constexpr const char* kUsage =
    "usage: kubesim --clusters N --listen HOST:PORT --kubeconfig-out FILE [--tls] [--ports]\n"
    "               [--seed S] [--manual-clock] [--tick-ms MS] [--bookmark-interval DUR]\n"
    "               [--history-window DUR] [--history-events N]\n"
    "               [--ready-ms MS] [--nodes N] [--kruise-progress-conditions]\n"
    "               [--audit-lists]\n";

int Fail(const std::string& message) {
  std::cerr << "kubesim: " << message << "\n";
  return 2;
}

// Thousands of watch streams need thousands of descriptors.
void RaiseFileLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
      std::cerr << "kubesim: warning: could not raise RLIMIT_NOFILE\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  SimulatorOptions sim;
  ServerOptions srv;
  std::string listen = "127.0.0.1:0";
  std::string kubeconfig;
  bool tls = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--clusters" && value(&v)) {
      sim.clusters = std::atoi(v.c_str());
    } else if (a == "--listen" && value(&v)) {
      listen = v;
    } else if (a == "--kubeconfig-out" && value(&v)) {
      kubeconfig = v;
    } else if (a == "--seed" && value(&v)) {
      sim.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--tick-ms" && value(&v)) {
      sim.tick_ms = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--history-events" && value(&v)) {
      sim.cluster.history_events = std::strtoull(v.c_str(), nullptr, 10);
    } else if ((a == "--history-window" || a == "--bookmark-interval") && value(&v)) {
      auto d = ParseDuration(v);
      if (!d) return Fail("invalid duration for " + a + ": " + v);
      if (a == "--history-window") {
        sim.cluster.history_window = *d;
        sim.continue_window = *d;
      } else {
        srv.bookmark_interval = *d;
      }
    } else if (a == "--ready-ms" && value(&v)) {
      sim.control.controllers.ready_delay =
          std::chrono::milliseconds(std::max(0, std::atoi(v.c_str())));
    } else if (a == "--nodes" && value(&v)) {
      sim.control.controllers.nodes = std::max(0, std::atoi(v.c_str()));
    } else if (a == "--audit-lists") {
      sim.control.audit_lists = true;
    } else if (a == "--kruise-progress-conditions") {
      sim.control.controllers.kruise_progress_conditions = true;
    } else if (a == "--tls") {
      tls = true;
    } else if (a == "--ports") {
      srv.per_cluster_ports = true;
    } else if (a == "--manual-clock") {
      sim.manual_clock = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << kUsage;
      return Fail("unknown or incomplete flag " + a);
    }
  }
  if (sim.clusters < 1) return Fail("--clusters must be at least 1");
  if (kubeconfig.empty()) return Fail("--kubeconfig-out is required");
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return Fail("--listen must be HOST:PORT");
  srv.host = listen.substr(0, colon);
  srv.port = static_cast<std::uint16_t>(std::atoi(listen.substr(colon + 1).c_str()));

  sim.tls = tls;
  RaiseFileLimit();
  if (tls) {
    std::string error;
    srv.tls = GenerateTls(&error);
    if (!srv.tls) return Fail(error);
  }
  Simulator simulator(sim);
  Server server(simulator, srv);
  std::vector<std::uint16_t> ports;
  std::string error;
  if (!server.Start(&ports, &error)) return Fail(error);

  std::string scheme = tls ? "https://" : "http://";
  std::vector<KubeconfigEntry> entries;
  for (int i = 0; i < simulator.cluster_count(); ++i) {
    const Cluster& c = simulator.cluster(i);
    std::string server_url =
        srv.per_cluster_ports
            ? scheme + srv.host + ":" + std::to_string(ports[i])
            : scheme + srv.host + ":" + std::to_string(ports[0]) + "/clusters/" + c.name();
    entries.push_back({c.name(), server_url, c.token()});
  }
  if (!WriteFileAtomically(kubeconfig, RenderKubeconfig(entries, tls ? srv.tls->ca_pem : ""),
                           &error))
    return Fail(error);
  std::cout << "kubesim ready: " << scheme << srv.host << ":" << ports[0]
            << " clusters=" << simulator.cluster_count() << " ports=" << ports.size()
            << " kubeconfig=" << kubeconfig << std::endl;
  server.Run();
  return 0;
}
