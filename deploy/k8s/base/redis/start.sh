#!/bin/sh
# Starts one node of the Redis Cluster (the container command of StatefulSet redis-cluster).
#
#  1. The cluster's own configuration (nodes.conf, on the pod's small volume: node IDs, addresses,
#     slots; no data) keeps the pod's identity across restarts. Pods get new IPs when recreated, so
#     each peer's IP in it is refreshed from the peer's stable hostname before Redis reads it (if
#     every pod moved at once, no node could reach another otherwise).
#  2. A node that was a master holding slots comes back empty (no persistence). Started at once,
#     it would still be the master of those slots, and its replica would copy the empty dataset:
#     that third of the accounts would lose its raw copies, limits and idempotency keys. So it waits
#     until a peer reports its slots taken over by the replica (then it rejoins as that node's
#     replica and syncs from it), or REDIS_FAILOVER_WAIT_SECONDS have passed (no replica left).
#  3. Writes the configuration (this directory's redis.conf plus the password, the announced
#     hostname, maxmemory = REDIS_MAXMEMORY_PERCENT of the memory limit) and execs redis-server.
#
# Environment: REDIS_PASSWORD, REDIS_ANNOUNCE_HOSTNAME, REDIS_MEMORY_LIMIT_MB (the container's
# limit), REDIS_MAXMEMORY_PERCENT, POD_IP; REDIS_PORT, REDIS_BIND, REDIS_DATA_DIR,
# REDIS_CLUSTER_DIR, REDIS_RUN_DIR keep the pod's defaults unless set (deploy/test runs this script
# against real redis-server processes on loopback addresses).
set -eu

: "${REDIS_PASSWORD:?}" "${REDIS_ANNOUNCE_HOSTNAME:?}" "${REDIS_MEMORY_LIMIT_MB:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=${REDIS_PORT:-6379}
BIND=${REDIS_BIND:-* -::*}
DATA=${REDIS_DATA_DIR:-/data}
CLUSTER=${REDIS_CLUSTER_DIR:-/cluster}
RUN=${REDIS_RUN_DIR:-/run/redis}
NODES=$CLUSTER/nodes.conf
PERCENT=${REDIS_MAXMEMORY_PERCENT:-60}
export REDISCLI_AUTH="$REDIS_PASSWORD"

log() { echo "start.sh: $*" >&2; }
resolve() {
  case $1 in
    *[!0-9.]*) getent hosts "$1" 2>/dev/null | awk 'NR == 1 { print $1 }' ;;
    *) echo "$1" ;;
  esac
}
now() { date +%s; }

# 1. Peers' IPs from their hostnames (nodes.conf address: ip:port@cport[,hostname[,aux...]]).
if [ -s "$NODES" ]; then
  : > "$NODES.new"
  while read -r id addr rest; do
    if [ "$id" = vars ] || [ -z "$rest" ]; then
      echo "$id $addr $rest" >> "$NODES.new"
      continue
    fi
    ipport=${addr%%,*}
    aux=
    case $addr in *,*) aux=${addr#*,} ;; esac
    host=${aux%%,*}
    ip=${ipport%:*}
    new=
    case $rest in
      myself*) new=${POD_IP:-} ;;
      *) if [ -n "$host" ]; then new=$(resolve "$host"); fi ;;
    esac
    if [ -n "$new" ] && [ "$new" != "$ip" ]; then
      log "node $id ($host) moved from $ip to $new"
      ip=$new
    fi
    echo "$id $ip:${ipport##*:}${aux:+,$aux} $rest" >> "$NODES.new"
  done < "$NODES"
  mv "$NODES.new" "$NODES"
fi

# 2. A master that held slots waits for its replica to take them over.
if [ -s "$NODES" ] && awk '$3 ~ /myself/ && $3 ~ /master/ && NF > 8 { found = 1 } END { exit !found }' "$NODES"; then
  me=$(awk '$3 ~ /myself/ { print $1 }' "$NODES")
  wait=${REDIS_FAILOVER_WAIT_SECONDS:-30}
  deadline=$(($(now) + wait))
  log "this node ($me) was a master holding slots and has no data left: waiting up to ${wait}s for its replica to take them over"
  taken=
  while [ -z "$taken" ] && [ "$(now)" -lt "$deadline" ]; do
    for peer in $(awk -v me="$me" '$1 != me && $1 != "vars" { split($2, a, ","); split(a[1], b, "@"); print b[1] }' "$NODES"); do
      view=$(timeout 2 redis-cli -h "${peer%:*}" -p "${peer##*:}" --no-auth-warning cluster nodes 2>/dev/null | awk -v me="$me" '$1 == me' || true)
      if [ -n "$view" ] && echo "$view" | awk '{ exit !($3 ~ /slave/ || NF <= 8) }'; then
        taken=$peer
        break
      fi
    done
    [ -n "$taken" ] || sleep 1
  done
  if [ -n "$taken" ]; then log "its slots have another master (seen by $taken): joining as a replica"; else log "no replica took over within ${wait}s: starting as the (empty) master of its slots"; fi
fi

# 3. Configuration and start.
maxmemory=$((REDIS_MEMORY_LIMIT_MB * PERCENT / 100))
mkdir -p "$RUN" "$DATA" "$CLUSTER"
umask 077
cat > "$RUN/redis.conf" <<EOF
include $HERE/redis.conf
port $PORT
bind $BIND
dir $DATA
cluster-config-file $NODES
cluster-announce-hostname $REDIS_ANNOUNCE_HOSTNAME
maxmemory ${maxmemory}mb
requirepass "$REDIS_PASSWORD"
masterauth "$REDIS_PASSWORD"
EOF
# Tests bind each node to its own loopback address: its cluster bus connections must come from it.
if [ -n "${REDIS_BIND:-}" ]; then echo "bind-source-addr $REDIS_BIND" >> "$RUN/redis.conf"; fi
log "maxmemory ${maxmemory}mb (${PERCENT}% of the ${REDIS_MEMORY_LIMIT_MB}Mi limit), announced as $REDIS_ANNOUNCE_HOSTNAME"
exec redis-server "$RUN/redis.conf"
