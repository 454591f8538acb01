#!/usr/bin/env bash
# The quickstart: installs what it needs, builds fleetwave and kubesim, starts six simulated
# clusters (dev, qa and prod in two regions each), creates the git repository the example
# deploys from, and runs the daemon (`fleetwave run`) on examples/quickstart/. The rollout is
# shown with `fleetwave get appset guestbook --watch`: step 1 (dev), then the manual gate of
# step 2 (qa, maxUpdate: 0), which the script opens for you with `fleetwave sync`, then step 3
# (prod, one region at a time), until "ApplicationSet Rollout has completed". Then it prints the
# web view and metrics URLs and keeps everything running (on a terminal) until Ctrl-C, which
# stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target fleetwave kubesim

fw=$PWD/build/tools/fleetwave/fleetwave
ex=$PWD/examples/quickstart
work=$(mktemp -d /tmp/fleetwave-quickstart.XXXXXX)
repo=/var/tmp/fleetwave-quickstart/guestbook.git  # the repoURL the example's ApplicationSet names
api=http://127.0.0.1:8089
completed="ApplicationSet Rollout has completed"
pids=()
watcher=""
cleanup() {
  [ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
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
# Where the rollout stands, from the daemon's API: "gate APP..." while the current step's apps
# all wait for a manual sync (maxUpdate: 0), "complete" once the set says so, else "running".
rollout_state() {
  python3 - "$api" <<'EOF'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1] + "/api/v1/applicationsets/guestbook", timeout=5) as r:
        s = json.load(r)
except Exception:
    print("running"); sys.exit()
status = s.get("status") or {}
if any(c.get("type") == "RolloutProgressing" and c.get("message") == "ApplicationSet Rollout has completed"
       for c in status.get("conditions") or []):
    print("complete"); sys.exit()
step = (status.get("rollout") or {}).get("step") or 0
steps = ((s.get("spec") or {}).get("strategy") or {}).get("rollingSync", {}).get("steps") or []
gate = 0 < step <= len(steps) and str(steps[step - 1].get("maxUpdate")) in ("0", "0%")
apps = [e for e in status.get("applicationStatus") or [] if str(e.get("step")) == str(step)]
if gate and apps and all(e.get("status") == "Waiting" for e in apps):
    print("gate " + " ".join(sorted(e["application"] for e in apps)))
else:
    print("running")
EOF
}
# Shows `fleetwave get appset guestbook --watch` until rollout_state prints a line starting with
# $1, and leaves that line in $state. Up to 180 s.
watch_until() {
  "$fw" get appset guestbook --watch &
  watcher=$!
  for _ in $(seq 1 900); do
    state=$(rollout_state)
    [[ "$state" == "$1"* ]] && break
    kill -0 "$watcher" 2>/dev/null || { echo "fleetwave get --watch exited"; exit 1; }
    sleep 0.2
  done
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null || true
  watcher=""
  echo
  [[ "$state" == "$1"* ]] || { echo "the rollout did not reach '$1' in 180 s; log: $work/fleetwave.log"; exit 1; }
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

say "Start six simulated clusters (dev, qa, prod x eu, us: sim-0..sim-5) on 127.0.0.1:18443; pods get ready after 1.5 s"
build/tools/kubesim/kubesim --clusters 6 --listen 127.0.0.1:18443 --tls --ready-ms 1500 \
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
echo "daemon log: $work/fleetwave.log"
# Every client command finds the daemon and its token through these.
export FLEETWAVE_SERVER=$api FLEETWAVE_TOKEN
FLEETWAVE_TOKEN=$(cat "$work/api-token")

say "The rollout: fleetwave get appset guestbook --watch (step 1, dev, until the manual gate)"
watch_until gate
read -r -a gate_apps <<<"${state#gate }"

say "Step 2 (qa) is a manual gate (maxUpdate: 0): its apps wait for someone to sync them. Syncing them for you:"
for app in "${gate_apps[@]}"; do
  echo "\$ fleetwave sync $app"
  "$fw" sync "$app"
done

say "The rollout goes on: fleetwave get appset guestbook --watch (qa, then prod one region at a time)"
watch_until complete
"$fw" get appset guestbook

say "$completed"
cat <<EOF
  web view:  $api/   (paste the token from $work/api-token to sync, skip, pause or resume there)
  API:       $api/api/v1/applicationsets/guestbook
  metrics:   http://127.0.0.1:9464/metrics
  CLI:       FLEETWAVE_TOKEN=\$(cat $work/api-token) $fw get apps
EOF
if [ -t 1 ] || [ "${QUICKSTART_KEEP_RUNNING:-}" = 1 ]; then
  printf '\nThe daemon and the simulated clusters keep running: press Ctrl-C to stop them.\n'
  wait "${pids[@]}"
fi
