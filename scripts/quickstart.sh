#!/usr/bin/env bash
# The quickstart: installs what it needs, builds fleetwave and kubesim, starts three
# simulated clusters, and walks the guestbook example of examples/guestbook/ through
# validate, doctor, generate, an offline rollout plan, and step 1 of the rollout applied to
# its cluster, watched until the Deployment is available.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target fleetwave kubesim

fw=build/tools/fleetwave/fleetwave
ex=examples/guestbook
work=$(mktemp -d /tmp/fleetwave-quickstart.XXXXXX)
kubesim_pid=
cleanup() {
  [ -n "$kubesim_pid" ] && kill "$kubesim_pid" 2>/dev/null && wait "$kubesim_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "Validate the ApplicationSet and the daemon's configuration" \
  "$fw" validate "$ex/applicationset.yaml" "$ex/fleetwave.yaml"

printf '\n\033[1m== Start three simulated clusters (sim-0 dev, sim-1 qa, sim-2 prod)\033[0m\n'
build/tools/kubesim/kubesim --clusters 3 --listen 127.0.0.1:18443 --tls \
  --kubeconfig-out "$work/kubeconfig" >"$work/kubesim.log" 2>&1 &
kubesim_pid=$!
for _ in $(seq 1 200); do
  grep -q '^kubesim ready' "$work/kubesim.log" && break
  kill -0 "$kubesim_pid" 2>/dev/null || { cat "$work/kubesim.log"; echo "kubesim did not start (is port 18443 free?)"; exit 1; }
  sleep 0.1
done
grep '^kubesim ready' "$work/kubesim.log" || { echo "kubesim did not become ready in 20 s"; exit 1; }
sed "s|^kubeconfig: .*|kubeconfig: $work/kubeconfig|" "$ex/fleetwave.yaml" >"$work/fleetwave.yaml"

step "Check every cluster: reachable, version, permissions, latency" \
  "$fw" doctor --kubeconfig "$work/kubeconfig"
step "Generate one Application per cluster (destinations resolved against the kubeconfig)" \
  "$fw" generate -f "$ex/applicationset.yaml" --config "$work/fleetwave.yaml"
step "Plan the rollout of commit 7d3f0a1 against a sample live state (step 2 is a manual gate)" \
  "$fw" plan --appset "$ex/applicationset.yaml" --apps "$ex/live-apps.yaml" --now 2026-11-29T10:00:00Z -o yaml

k=(kubectl --kubeconfig "$work/kubeconfig" --context sim-0)
step "Step 1 on sim-0: apply the guestbook manifests" \
  bash -c "printf 'apiVersion: v1\\nkind: Namespace\\nmetadata: {name: guestbook}\\n' | $(printf '%q ' "${k[@]}") apply -f - && $(printf '%q ' "${k[@]}") apply -n guestbook -f $ex/manifests/guestbook/"
step "Watch the Deployment roll out" \
  "${k[@]}" rollout status -n guestbook deployment/guestbook-ui --timeout=60s
step "Its health as fleetwave judges it" \
  bash -c "$(printf '%q ' "${k[@]}") get -n guestbook deployment/guestbook-ui -o json | $fw health -f -"
printf '\nDone. The simulated clusters stop now; see README.md for what comes next.\n'
