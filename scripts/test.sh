#!/usr/bin/env bash
# Builds everything and runs every test; then builds the unit tests with ASan+UBSan and
# runs them again. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# The sanitizer build covers the unit tests (engine and CLI); kubesim's integration tests
# run against the regular build above.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFLEETWAVE_SANITIZE=ON -DFLEETWAVE_BUILD_KUBESIM=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
