#!/bin/sh
# The Job redis-cluster-create: forms the Redis Cluster from the StatefulSet's pods once, and on
# every later run checks it and adds back a pod that lost its cluster configuration. Safe to run at
# any time: it never moves, assigns or drops the slots of a formed cluster.
#   1. Waits until every node of REDIS_CLUSTER_NODES (host:port,…) resolves and answers PING.
#   2. No node knows another, or no node holds a slot (a new cluster, or what an interrupted run
#      left): resets those nodes, then `redis-cli --cluster create … --cluster-replicas 1`
#      (the first three nodes become masters of a third of the slots each, the others replicas).
#   3. Otherwise the cluster exists. A node that knows only itself lost nodes.conf with its volume:
#      every node forgets the identity the pod had before (once it holds no slots: its replica has
#      taken them over), and the node is added back as a replica of the master with fewest.
#   4. `redis-cli --cluster check`: the Job fails unless every slot has a master and the nodes agree;
#      prints which pod is master and which replica of it.
set -eu
: "${REDIS_PASSWORD:?}" "${REDIS_CLUSTER_NODES:?}"
export REDISCLI_AUTH="$REDIS_PASSWORD"
deadline=$(($(date +%s) + ${REDIS_CLUSTER_WAIT_SECONDS:-600}))

log() { echo "create-cluster.sh: $*" >&2; }
resolve() {
  case $1 in
    *[!0-9.]*) getent hosts "$1" 2>/dev/null | awk 'NR == 1 { print $1 }' ;;
    *) echo "$1" ;;
  esac
}
# cli ADDRESS COMMAND…: one command to one node (ip:port), its answer without CRs. (Functions
# share the script's variables: this one's name is its own.)
cli() {
  _cli_to=$1
  shift
  timeout 5 redis-cli -h "${_cli_to%:*}" -p "${_cli_to##*:}" --no-auth-warning "$@" 2>&1 | tr -d '\r'
}
info() { cli "$1" cluster info | sed -n "s/^$2://p"; }

# 1. Every node up.
while :; do
  addrs=
  missing=
  for node in $(echo "$REDIS_CLUSTER_NODES" | tr ',' ' '); do
    ip=$(resolve "${node%:*}")
    if [ -n "$ip" ] && [ "$(cli "$ip:${node##*:}" ping)" = PONG ]; then addrs="$addrs $ip:${node##*:}"; else missing="$missing $node"; fi
  done
  [ -n "$missing" ] || break
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "gave up waiting for:$missing"
    exit 1
  fi
  log "waiting for:$missing"
  sleep 5
done

max_known=0
slots=0
for a in $addrs; do
  k=$(info "$a" cluster_known_nodes)
  s=$(info "$a" cluster_slots_assigned)
  if [ "$k" -gt "$max_known" ]; then max_known=$k; fi
  if [ "$s" -gt "$slots" ]; then slots=$s; fi
done

if [ "$max_known" -le 1 ] || [ "$slots" -eq 0 ]; then
  # 2. A new cluster. A node that met others or took slots in an interrupted run never served a
  # formed cluster: nothing of value is on it.
  for a in $addrs; do
    if [ "$(info "$a" cluster_known_nodes)" -gt 1 ] || [ "$(info "$a" cluster_slots_assigned)" -gt 0 ]; then
      log "resetting $a (left by an interrupted run)"
      cli "$a" flushall > /dev/null
      cli "$a" cluster reset hard > /dev/null
    fi
  done
  log "forming the cluster:$addrs"
  # shellcheck disable=SC2086
  redis-cli --cluster create $addrs --cluster-replicas 1 --cluster-yes
  member=${addrs# }
  member=${member%% *}
else
  # 3. The cluster exists: add back the nodes that lost their configuration.
  member=
  for a in $addrs; do
    if [ "$(info "$a" cluster_known_nodes)" -gt 1 ] && [ "$(info "$a" cluster_slots_assigned)" -gt 0 ]; then
      member=$a
      break
    fi
  done
  log "the cluster exists (seen from $member)"
  for a in $addrs; do
    [ "$(info "$a" cluster_known_nodes)" -eq 1 ] || continue
    if [ "$(info "$a" cluster_slots_assigned)" -gt 0 ]; then
      log "$a holds slots but knows no other node: not touching it (see deploy/README.md, Redis Cluster)"
      exit 1
    fi
    me=$(cli "$a" cluster myid)
    host=$(cli "$a" cluster nodes | awk '$3 ~ /myself/ { split($2, x, ","); print x[2] }')
    for old in $(cli "$member" cluster nodes | awk -v h="$host" -v me="$me" '{ split($2, x, ",") } h != "" && x[2] == h && $1 != me { print $1 }'); do
      if cli "$member" cluster nodes | awk -v id="$old" '$1 == id && NF > 8 { f = 1 } END { exit !f }'; then
        log "$a ($host) was $old, which still holds slots: run again once its replica has taken them over"
        exit 1
      fi
      log "forgetting $old, the identity $host had before"
      for b in $addrs; do
        if [ "$b" != "$a" ]; then cli "$b" cluster forget "$old" > /dev/null || true; fi
      done
    done
    log "adding $a ($host) back as a replica"
    redis-cli --cluster add-node "$a" "$member" --cluster-slave
  done
fi

# 4. Healthy, and who is who.
tries=0
until check=$(redis-cli --cluster check "$member" 2>&1); do
  tries=$((tries + 1))
  if [ "$tries" -ge 15 ]; then
    echo "$check" >&2
    log "the cluster is not healthy"
    exit 1
  fi
  sleep 2
done
# The replicas' new role reaches every node by gossip within a few seconds.
tries=0
while [ "$tries" -lt 10 ] && cli "$member" cluster nodes | awk '$3 ~ /master/ && NF <= 8 { f = 1 } END { exit !f }'; do
  tries=$((tries + 1))
  sleep 1
done
cli "$member" cluster nodes | awk '
  { split($2, x, ","); name[$1] = (x[2] != "" ? x[2] : x[1]) }
  $3 ~ /master/ { masters[$1] = $0 }
  $3 ~ /slave/ { replicas[$4] = replicas[$4] " " name[$1] }
  END { for (id in masters) { n = split(masters[id], f, " "); s = ""; for (i = 9; i <= n; i++) s = s " " f[i]; print "master " name[id] " slots" s " replicas:" (replicas[id] != "" ? replicas[id] : " none") } }' >&2
log "the cluster is healthy"
