#!/usr/bin/env bash
# Every test, as CI runs it: installs what it needs, checks formatting and layering, builds
# the Release configuration (warnings as errors) and runs every test, then the unit and
# integration tests again under ASan+UBSan (Debug) and the cluster client's under TSan
# (RelWithDebInfo), then each fuzz target over its seed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc)
step() { printf '\n== %s\n' "$*"; }

scripts/install-deps.sh

# ccache keys on paths relative to the checkout, so every clone shares one cache.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
configure() { cmake -S . -B "$1" -G Ninja -DFLEETWAVE_WERROR=ON "${@:2}" >/dev/null; }

step "format: clang-format --dry-run --Werror on every C++ file"
git ls-files -z -- '*.cc' '*.h' | xargs -0 clang-format --dry-run --Werror

step "layers: no include crosses a layer boundary"
python3 scripts/check-layers.py

step "Release build and every test"
configure build-release -DCMAKE_BUILD_TYPE=Release
cmake --build build-release -j"$jobs"
ctest --test-dir build-release --output-on-failure -j"$jobs"

# kubesim runs from the Release build in the sanitizer runs: it is the test peer, and its own
# tests ran above.
kubesim_bin="$root/build-release/tools/kubesim/kubesim"

step "ASan+UBSan (Debug): engine, CLI, client, sources and store tests"
configure build-asan -DCMAKE_BUILD_TYPE=Debug -DFLEETWAVE_SANITIZE=ON -DFLEETWAVE_BUILD_KUBESIM=OFF
cmake --build build-asan -j"$jobs"
# tests/lsan-suppressions.txt: libgit2's own leaks on remote connections (issue 27).
KUBESIM="$kubesim_bin" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$root/tests/lsan-suppressions.txt" \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE lint

if [ -x scripts/fuzz.sh ]; then
  step "fuzz targets over their seed corpora"
  scripts/fuzz.sh 0
fi

# Last, so its summary closes the run: three kinds of threads meet in the client (callers, the
# curl I/O thread, the callback executor), and the store's group commit hands batches between
# the pool threads that commit concurrently (one leads, the others wait for its result).
step "TSan (RelWithDebInfo): cluster-clients and store tests"
configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLEETWAVE_TSAN=ON -DFLEETWAVE_BUILD_KUBESIM=OFF
cmake --build build-tsan -j"$jobs" --target cluster_clients_tests store_tests
KUBESIM="$kubesim_bin" TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L "cluster_clients_tests|store_tests"
