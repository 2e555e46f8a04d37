#!/usr/bin/env bash
# The Secrets of namespace glimpse, made by hand with kubectl: the dev overlay's way, and a first
# try without the External Secrets operator. They have the names and keys that
# components/external-secrets produces (deploy/test checks both against what the pods read).
#
#   deploy/plain-secrets.sh passwords   before the first apply: random passwords for the internal
#                                       token, each Postgres role and Redis (kept on re-runs)
#   deploy/plain-secrets.sh cluster     once Strimzi and CloudNativePG are up: copies the Kafka
#                                       users' passwords and the Kafka + Postgres CAs into glimpse
#   deploy/plain-secrets.sh all         both, waiting for the operators in between
set -euo pipefail

NS=${GLIMPSE_NAMESPACE:-glimpse}
KAFKA_NS=${KAFKA_NAMESPACE:-kafka}

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

# A URL-safe random password, or the one the Secret already holds (re-runs change nothing).
password() {
  local name=$1 current
  current=$(kubectl -n "$NS" get secret "$name" -o jsonpath='{.data.password}' 2>/dev/null | base64 -d || true)
  if [ -n "$current" ]; then printf '%s' "$current"; else openssl rand -hex 32; fi
}

apply_secret() {
  kubectl -n "$NS" create secret generic "$@" --dry-run=client -o yaml | kubectl apply -f -
}

passwords() {
  kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS"
  local token
  # One internal token per calling service; the called services get only their SHA-256 digests.
  local gateway_token webhooks_token
  gateway_token=$(kubectl -n "$NS" get secret glimpse-internal-token -o jsonpath='{.data.GATEWAY_INTERNAL_TOKEN}' 2>/dev/null | base64 -d || true)
  webhooks_token=$(kubectl -n "$NS" get secret glimpse-internal-token -o jsonpath='{.data.WEBHOOKS_INTERNAL_TOKEN}' 2>/dev/null | base64 -d || true)
  gateway_token=${gateway_token:-$(openssl rand -hex 32)}
  webhooks_token=${webhooks_token:-$(openssl rand -hex 32)}
  apply_secret glimpse-internal-token --from-literal=GATEWAY_INTERNAL_TOKEN="$gateway_token" --from-literal=WEBHOOKS_INTERNAL_TOKEN="$webhooks_token" \
    --from-literal=INTERNAL_TOKENS="gateway=sha256:$(printf '%s' "$gateway_token" | sha256sum | cut -d' ' -f1),webhooks=sha256:$(printf '%s' "$webhooks_token" | sha256sum | cut -d' ' -f1)"
  token=$(kubectl -n "$NS" get secret glimpse-link-token-secret -o jsonpath='{.data.LINK_TOKEN_SECRET}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-link-token-secret --from-literal=LINK_TOKEN_SECRET="${token:-$(openssl rand -hex 32)}"
  token=$(kubectl -n "$NS" get secret glimpse-operator-token -o jsonpath='{.data.OPERATOR_TOKEN}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-operator-token --from-literal=OPERATOR_TOKEN="${token:-$(openssl rand -hex 32)}"
  token=$(kubectl -n "$NS" get secret glimpse-visitors-erasure-key -o jsonpath='{.data.VISITORS_ERASURE_KEY}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-visitors-erasure-key --from-literal=VISITORS_ERASURE_KEY="${token:-$(openssl rand -hex 32)}"
  token=$(kubectl -n "$NS" get secret glimpse-enrichment-billing-key -o jsonpath='{.data.ENRICHMENT_BILLING_KEY}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-enrichment-billing-key --from-literal=ENRICHMENT_BILLING_KEY="${token:-$(openssl rand -hex 32)}"
  token=$(kubectl -n "$NS" get secret glimpse-playbook-erasure-key -o jsonpath='{.data.PLAYBOOK_ERASURE_KEY}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-playbook-erasure-key --from-literal=PLAYBOOK_ERASURE_KEY="${token:-$(openssl rand -hex 32)}"
  token=$(kubectl -n "$NS" get secret glimpse-webhooks-secret-key -o jsonpath='{.data.WEBHOOKS_SECRET_KEY}' 2>/dev/null | base64 -d || true)
  apply_secret glimpse-webhooks-secret-key --from-literal=WEBHOOKS_SECRET_KEY="${token:-$(openssl rand -hex 32)}"
  local svc host pw
  for svc in gateway playbook enrichment webhooks visitors migrate; do
    # The services go through PgBouncer; the migration runner straight to the primary (advisory lock).
    if [ "$svc" = migrate ]; then host=glimpse-pg-rw; else host=glimpse-pg-pooler-rw; fi
    pw=$(password "glimpse-db-$svc")
    apply_secret "glimpse-db-$svc" --type=kubernetes.io/basic-auth \
      --from-literal=username="glimpse_$svc" \
      --from-literal=password="$pw" \
      --from-literal=DATABASE_URL="postgresql://glimpse_$svc:$pw@$host.$NS.svc:5432/glimpse?sslmode=verify-full"
    # CloudNativePG picks up password changes of Secrets with this label.
    kubectl -n "$NS" label secret "glimpse-db-$svc" cnpg.io/reload=true --overwrite >/dev/null
  done
  pw=$(password glimpse-redis)
  # The Redis Cluster's password (the nodes' requirepass and masterauth, the gateway's REDIS_PASSWORD).
  apply_secret glimpse-redis --from-literal=password="$pw"
}

# One key of a Secret an operator made; fails (and so stops the script) if it is not there yet.
read_key() {
  local ns=$1 name=$2 key=$3 value
  value=$(kubectl -n "$ns" get secret "$name" -o jsonpath="{.data.${key//./\\.}}")
  [ -n "$value" ] || { echo "secret $ns/$name has no $key yet: are the operators done?" >&2; return 1; }
  printf '%s' "$value" | base64 -d
}

cluster() {
  local dir svc pw
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  for svc in gateway playbook webhooks enrichment visitors; do
    pw=$(read_key "$KAFKA_NS" "glimpse-$svc" password)
    apply_secret "glimpse-kafka-$svc" --from-literal=password="$pw"
  done
  read_key "$KAFKA_NS" glimpse-cluster-ca-cert ca.crt > "$dir/kafka-ca.crt"
  pw=$(read_key "$KAFKA_NS" glimpse-keda password)
  apply_secret glimpse-kafka-keda --from-literal=sasl=scram_sha512 --from-literal=username=glimpse-keda \
    --from-literal=password="$pw" --from-literal=tls=enable --from-file=ca.crt="$dir/kafka-ca.crt"
  read_key "$NS" glimpse-pg-ca ca.crt > "$dir/pg-ca.crt"
  cat "$dir/kafka-ca.crt" "$dir/pg-ca.crt" > "$dir/ca.crt"
  apply_secret glimpse-ca-bundle --from-file=ca.crt="$dir/ca.crt"
}

wait_for_operators() {
  echo "waiting for Kafka users and the Postgres cluster …" >&2
  kubectl -n "$KAFKA_NS" wait --for=condition=Ready kafkauser/glimpse-gateway kafkauser/glimpse-playbook kafkauser/glimpse-webhooks kafkauser/glimpse-enrichment kafkauser/glimpse-visitors kafkauser/glimpse-keda --timeout=15m
  kubectl -n "$NS" wait --for=condition=Ready cluster.postgresql.cnpg.io/glimpse-pg --timeout=15m
}

case "${1:-}" in
  passwords) passwords ;;
  cluster) cluster ;;
  all) passwords; wait_for_operators; cluster ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
