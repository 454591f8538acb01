#!/usr/bin/env bash
# The quickstart: installs what it needs, builds fleetwave, and walks the guestbook example
# of examples/guestbook/ through validate, generate and an offline rollout plan.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target fleetwave

fw=build/tools/fleetwave/fleetwave
ex=examples/guestbook
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "Validate the ApplicationSet and the daemon's configuration" \
  "$fw" validate "$ex/applicationset.yaml" "$ex/fleetwave.yaml"
step "Generate one Application per cluster (destinations resolved against the kubeconfig)" \
  "$fw" generate -f "$ex/applicationset.yaml" --config "$ex/fleetwave.yaml"
step "Plan the rollout of commit 7d3f0a1 against a sample live state" \
  "$fw" plan --appset "$ex/applicationset.yaml" --apps "$ex/live-apps.yaml" --now 2026-11-29T10:00:00Z -o yaml
