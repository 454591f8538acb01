#!/bin/bash
# client_bench over HTTP/2: N clusters, each its own origin (one nghttpx frontend port per
# cluster, as real API servers are separate hosts), all proxied to one kubesim (prefix mode,
# HTTP/1.1 + TLS). nghttpx offers h2 by ALPN with a self-made certificate, so the client
# multiplexes each cluster's requests and watches on one connection. Extra arguments go to
# client_bench (e.g. --changes 1000 --rest-seconds 10).
#
#   bench/client_bench_h2.sh KUBESIM CLIENT_BENCH CLUSTERS FIRST_PORT [client_bench args...]
# (frontends listen on FIRST_PORT .. FIRST_PORT+CLUSTERS-1, which must be free)
set -euo pipefail
kubesim=$1 bench=$2 n=$3 first_port=$4
shift 4
ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d)
ks_pid= px_pid=
cleanup() {
  [ -n "$px_pid" ] && kill "$px_pid" 2>/dev/null
  [ -n "$ks_pid" ] && kill "$ks_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

"$kubesim" --clusters "$n" --tls --listen 127.0.0.1:0 --kubeconfig-out "$dir/k.yaml" >"$dir/ks.out" &
ks_pid=$!
for _ in $(seq 600); do grep -q "kubesim ready" "$dir/ks.out" && break; sleep 0.1; done
kport=$(grep -m1 'server: https' "$dir/k.yaml" | sed 's|.*127.0.0.1:\([0-9]*\)/.*|\1|')

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
ca=$(base64 -w0 "$dir/cert.pem")

{
  for ((i = 0; i < n; i++)); do echo "frontend=127.0.0.1,$((first_port + i))"; done
  echo "backend=127.0.0.1,$kport;;tls"
  echo "insecure=yes"
  echo "no-ocsp=yes"
  echo "workers=1"
  echo "backend-read-timeout=1h"
  echo "log-level=ERROR"
  echo "errorlog-file=$dir/nghttpx.log"
  echo "private-key-file=$dir/key.pem"
  echo "certificate-file=$dir/cert.pem"
} >"$dir/nghttpx.conf"
nghttpx --conf="$dir/nghttpx.conf" &
px_pid=$!
last=$((first_port + n - 1))
for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$last") 2>/dev/null && break; sleep 0.1; done

# Cluster i -> frontend port first_port+i, trusting the proxy's certificate.
awk -v first="$first_port" -v ca="$ca" '
  /^    server: / { sub(/127\.0\.0\.1:[0-9]+/, "127.0.0.1:" (first + i)); i++ }
  /certificate-authority-data:/ { sub(/certificate-authority-data: .*/, "certificate-authority-data: " ca) }
  { print }' "$dir/k.yaml" >"$dir/k2.yaml"

"$bench" --kubeconfig "$dir/k2.yaml" --http2 1 "$@"
