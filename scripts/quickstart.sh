#!/usr/bin/env bash
# The quickstart: installs what it needs, builds fleetwave and kubesim, starts three simulated
# clusters (sim-0 dev, sim-1 qa, sim-2 prod), creates the git repository the guestbook example
# deploys from, and runs the daemon (`fleetwave run`) on examples/guestbook/. The rollout is
# printed as it advances: step 1 (dev), the manual gate of step 2 (qa, maxUpdate: 0) which the
# script opens for you through the API, then step 3 (prod), until "ApplicationSet Rollout has
# completed". Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target fleetwave kubesim

fw=$PWD/build/tools/fleetwave/fleetwave
ex=$PWD/examples/guestbook
work=$(mktemp -d /tmp/fleetwave-quickstart.XXXXXX)
repo=/var/tmp/fleetwave-quickstart/guestbook.git  # the repoURL the example's ApplicationSet names
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
wait_for_line() {  # FILE PATTERN PID WHAT: up to 20 s
  for _ in $(seq 1 200); do
    grep -q "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || { cat "$1"; echo "$4 exited"; exit 1; }
    sleep 0.1
  done
  cat "$1"; echo "$4 not ready after 20 s"; exit 1
}

say "Validate the ApplicationSet and the daemon's configuration"
"$fw" validate "$ex/applicationsets/guestbook.yaml" "$ex/fleetwave.yaml"

say "A git repository with the guestbook manifests ($repo)"
rm -rf "$repo" && mkdir -p "$repo"
cp -r "$ex/manifests/guestbook" "$repo/"
git -C "$repo" init -q -b main
git -C "$repo" add .
git -C "$repo" -c user.name=quickstart -c user.email=quickstart@localhost commit -qm "guestbook v1"
git -C "$repo" log --oneline

say "Start three simulated clusters (sim-0 dev, sim-1 qa, sim-2 prod) on 127.0.0.1:18443; pods get ready after 1.5 s"
build/tools/kubesim/kubesim --clusters 3 --listen 127.0.0.1:18443 --tls --ready-ms 1500 \
  --kubeconfig-out "$work/kubeconfig" >"$work/kubesim.log" 2>&1 &
pids+=($!)
wait_for_line "$work/kubesim.log" '^kubesim ready' "${pids[-1]}" "kubesim (is port 18443 free?)"
"$fw" doctor --kubeconfig "$work/kubeconfig"

say "Start the daemon: fleetwave run --config $work/fleetwave.yaml"
mkdir -p "$work/applicationsets"
cp "$ex/applicationsets/guestbook.yaml" "$work/applicationsets/"
head -c 24 /dev/urandom | base64 >"$work/api-token"
sed -e "s|^kubeconfig: .*|kubeconfig: $work/kubeconfig|" \
    -e "s|^applicationSets: .*|applicationSets: $work/applicationsets|" \
    -e "s|^state: .*|state: sqlite://$work/state.db|" "$ex/fleetwave.yaml" >"$work/fleetwave.yaml"
printf 'apiTokenFile: %s\ngit: {pollInterval: 5s}\n' "$work/api-token" >>"$work/fleetwave.yaml"
"$fw" run --config "$work/fleetwave.yaml" 2>"$work/fleetwave.log" &
pids+=($!)
wait_for_line "$work/fleetwave.log" 'fleetwave run: API on' "${pids[-1]}" "fleetwave run (is port 8089 free?)"
echo "daemon log: $work/fleetwave.log    API: http://127.0.0.1:8089/api/v1/applicationsets/guestbook"

say "The rollout, as the daemon advances it"
python3 scripts/watch-rollout.py guestbook --token-file "$work/api-token" --sync-gates --timeout 180

say "Every decision the daemon took (its log)"
grep -E 'promoted|sync|step|rollout|Healthy' "$work/fleetwave.log" | cut -c1-160 | head -40
printf '\nDone. The daemon and the simulated clusters stop now; see README.md for what comes next.\n'
