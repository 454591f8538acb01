#!/bin/sh
# Issue 33's acceptance run: tests/daemon/fleet_view_e2e_test.py at 2,000 kubesim clusters (one
# set of 2,000 apps, 5 steps, two failing apps), its screenshots kept in docs/images/. Prints the
# test's "fleet-view:" line (first-load bytes, first render time, CLI lines).
# Usage: bench/fleet_view.sh [BUILD_DIR] [CLUSTERS]   (default build-release, 2000)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-release}
case $build in /*) ;; *) build=$root/$build ;; esac
clusters=${2:-2000}
# 2,000 clusters hold ~10 descriptors each in the daemon and kubesim.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
export KUBESIM="$build/tools/kubesim/kubesim" FLEETWAVE="$build/tools/fleetwave/fleetwave"
export FLEET_VIEW_CLUSTERS=$clusters FLEET_VIEW_SCREENSHOTS="$root/docs/images"
exec /usr/bin/python3 "$root/tests/daemon/fleet_view_e2e_test.py" -v
