#!/bin/sh
# The probes of a Redis Cluster node:
#   probe.sh live    Redis answers (PONG, or still loading a full sync): restart it otherwise.
#   probe.sh ready   it serves: the cluster is formed and reachable (cluster_state:ok), and a replica
#                    has finished its sync with its master. Rollouts and the PodDisruptionBudget wait
#                    for this, so a node is never taken down while another one is still catching up.
# Until the Job redis-cluster-create has formed the cluster, no node is ready (the StatefulSet
# starts its pods in parallel, so this does not hold up the others).
set -u
export REDISCLI_AUTH="$REDIS_PASSWORD"
cli() { timeout 3 redis-cli -h "${REDIS_HOST:-127.0.0.1}" -p "${REDIS_PORT:-6379}" --no-auth-warning "$@" 2>&1 | tr -d '\r'; }

pong=$(cli ping)
case ${1:-} in
  live)
    case $pong in *PONG* | *LOADING*) exit 0 ;; esac
    echo "ping: $pong"
    exit 1
    ;;
  ready)
    [ "$pong" = PONG ] || { echo "ping: $pong"; exit 1; }
    state=$(cli cluster info | sed -n 's/^cluster_state://p')
    [ "$state" = ok ] || { echo "cluster_state: ${state:-unknown}"; exit 1; }
    replication=$(cli info replication)
    case $replication in
      *role:slave*) case $replication in *master_link_status:up*) ;; *) echo "replica not in sync with its master"; exit 1 ;; esac ;;
    esac
    exit 0
    ;;
  *)
    echo "usage: probe.sh live|ready" >&2
    exit 2
    ;;
esac
