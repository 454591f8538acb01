#!/usr/bin/env bash
# Installs every Debian package fleetwave needs to build, test and run its quickstart.
# Idempotent and quiet: packages already present are skipped without touching apt's lists.
# Never installs `kubernetes-client`: it conflicts with the preinstalled kubectl.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  clang libclang-rt-14-dev
  libgtest-dev libgmock-dev
  libyaml-cpp-dev nlohmann-json3-dev
  libcaf-dev libcurl4-openssl-dev libsqlite3-dev libgit2-dev libsystemd-dev
  prometheus-cpp-dev libboost-dev libssl-dev
  libjemalloc-dev  # the daemon's allocator (tools/fleetwave/CMakeLists.txt)
  prometheus
  python3-kubernetes python3-yaml git
  chromium chromium-driver python3-selenium
  nghttp2-proxy openssl
  systemd procps
  gnuplot-nox  # bench/fleet_bench's plot (docs/images)
  valgrind  # bench/reconcile_bench marks its events for callgrind (valgrind/callgrind.h)
  gdb  # bench/fleet_bench --heap-profile dumps jemalloc's profile from the running daemon
  tmux  # tests/daemon/get_watch_tty_e2e_test.py drives `get --watch` on a terminal
  libssh2-1-dev  # sources/git_remote_auth.cc checks ssh host keys with libssh2's known_hosts
  # The remote-repository tests serve git on loopback: git http-backend behind lighttpd over
  # HTTPS with basic auth, and sshd on a high port (tests/sources/git_remote_test.cc).
  lighttpd lighttpd-mod-openssl openssh-server
  # The etcd state backend's tests start real etcd members (tests/store/etcd_process.h).
  etcd-server etcd-client
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
