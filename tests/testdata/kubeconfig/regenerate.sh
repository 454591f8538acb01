#!/usr/bin/env bash
# Regenerates the kubectl-produced fixtures. The point of these files is that kubectl itself
# wrote them (kubectl config set-cluster / set-credentials / set-context), so the loader is
# tested against kubectl's real output, not our idea of it. Run from this directory.
set -euo pipefail
cd "$(dirname "$0")"
KUBECTL=${KUBECTL:-/usr/bin/kubectl}
# A throwaway CA and client certificate (test-only keys, never used anywhere else).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
  -subj /CN=fixture-ca -keyout ca.key -out ca.crt 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
  -subj /CN=fixture-client -keyout client.key -out client.crt 2>/dev/null
rm -f ca.key
rm -f kubectl-built.yaml
K="$KUBECTL config --kubeconfig kubectl-built.yaml"
$K set-cluster prod-eu --server=https://prod-eu.example.test:6443/k8s/clusters/c-42/ \
  --certificate-authority=ca.crt --embed-certs=true
$K set-cluster staging --server=https://staging.example.test:6443 --certificate-authority=ca.crt
$K set-cluster lab --server=https://lab.example.test --insecure-skip-tls-verify=true
$K set-cluster via-proxy --server=https://proxied.example.test --certificate-authority=ca.crt \
  --embed-certs=true
$K set-cluster via-proxy --proxy-url=http://127.0.0.1:3128
$K set-credentials token-user --token=fixture-token-do-not-log
$K set-credentials cert-user --client-certificate=client.crt --client-key=client.key \
  --embed-certs=true
$K set-credentials file-user --client-certificate=client.crt --client-key=client.key
$K set-credentials exec-user --exec-api-version=client.authentication.k8s.io/v1beta1 \
  --exec-command=./exec-plugin.sh --exec-arg=--cluster --exec-arg=lab \
  --exec-env=FIXTURE_TOKEN=exec-token-do-not-log
$K set-context prod-eu --cluster=prod-eu --user=token-user --namespace=apps
$K set-context staging --cluster=staging --user=cert-user
$K set-context staging-files --cluster=staging --user=file-user
$K set-context lab --cluster=lab --user=exec-user
$K set-context via-proxy --cluster=via-proxy --user=token-user
$K config use-context prod-eu 2>/dev/null || $K use-context prod-eu
