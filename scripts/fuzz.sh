#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang++ in build-fuzz/ and runs each one.
#   scripts/fuzz.sh 0         CI mode: each target runs once over its seed corpus (seconds).
#   scripts/fuzz.sh SECONDS   each target fuzzes for SECONDS, one after the other.
# Prints per target the executions, the coverage (cov:) and the crashes; exits non-zero when
# any target crashes (the reproducer is left in build-fuzz/crashes/<target>/).
# Environment: FUZZ_TARGETS="appset workload" runs a subset; FUZZ_JOBS sets build parallelism;
# FUZZ_SKIP_BUILD=1 runs the binaries already in build-fuzz/; FUZZ_RSS_MB caps memory (1500).
set -euo pipefail

seconds=${1:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
targets=${FUZZ_TARGETS:-"app_project appset appset_shape config kubeconfig template watch_decoder workload yaml_json"}

if [[ -z ${FUZZ_SKIP_BUILD:-} ]]; then  # FUZZ_SKIP_BUILD=1 reuses the binaries already built
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DFLEETWAVE_FUZZ=ON -DFLEETWAVE_BUILD_KUBESIM=OFF >/dev/null
  exes=()
  for t in $targets; do exes+=("${t}_fuzz"); done
  cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "${exes[@]}"
fi

# Memory is capped by ASan (hard_rss_limit_mb), not by libFuzzer's -rss_limit_mb: libFuzzer
# first prints a heap profile, which never finished for millions of chunks, so no input was
# written; ASan's limit dies through libFuzzer's death callback, which writes it as crash-*.
# An ASAN_OPTIONS given by the caller comes later and so wins.
export ASAN_OPTIONS="hard_rss_limit_mb=${FUZZ_RSS_MB:-1500}${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

failed=0
printf '%-14s %12s %8s %8s %s\n' target executions cov crashes result
for t in $targets; do
  corpus=$root/tests/fuzz/corpus/$t
  crashes=$build/crashes/$t
  log=$build/logs/$t.log
  mkdir -p "$crashes" "$(dirname "$log")"
  rm -f "$crashes"/*  # reproducers of an earlier run are not this run's crashes
  if [[ $seconds == 0 ]]; then
    # Only the seeds: no mutation, nothing written to the corpus.
    args=(-runs=0 "$corpus")
  else
    # Fuzz into a scratch corpus seeded from the repository's, so runs never grow the repo.
    work=$build/corpus/$t
    mkdir -p "$work"
    args=(-max_total_time="$seconds" -print_final_stats=1 "$work" "$corpus")
  fi
  rc=0
  (cd "$crashes" && "$build/tests/fuzz/${t}_fuzz" -artifact_prefix="$crashes/" \
    -print_final_stats=1 -rss_limit_mb=0 "${args[@]}") >"$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  ncrash=$(find "$crashes" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  result=ok
  if [[ $rc != 0 || $ncrash != 0 ]]; then
    result="FAILED (exit $rc; see $log)"
    failed=1
  fi
  printf '%-14s %12s %8s %8s %s\n' "$t" "${execs:-?}" "${cov:-?}" "$ncrash" "$result"
done
exit $failed
