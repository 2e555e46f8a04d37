#!/bin/sh
# preStop of a Redis Cluster node: a master hands its slots to an in-sync replica first
# (CLUSTER FAILOVER, coordinated: the master pauses its clients until the replica has caught up,
# so no acknowledged write is lost), and waits until it is a replica itself. Rollouts and node
# drains then cost the gateway a redirect instead of cluster-node-timeout without a master.
# A replica, or a master without an online replica, just stops.
set -u
export REDISCLI_AUTH="$REDIS_PASSWORD"
HOST=${REDIS_HOST:-127.0.0.1}
PORT=${REDIS_PORT:-6379}
cli() {
  _cli_host=$1 _cli_port=$2
  shift 2
  timeout 3 redis-cli -h "$_cli_host" -p "$_cli_port" --no-auth-warning "$@" 2>/dev/null | tr -d '\r'
}
log() { echo "pre-stop.sh: $*" >&2; }

role() { cli "$HOST" "$PORT" role | head -n 1; }
[ "$(role)" = master ] || exit 0
replica=$(cli "$HOST" "$PORT" info replication | sed -n 's/^slave[0-9]*:ip=\([^,]*\),port=\([0-9]*\),state=online.*/\1 \2/p' | head -n 1)
if [ -z "$replica" ]; then log "master without an online replica: stopping as is"; exit 0; fi
set -- $replica
log "handing this master's slots to its replica $1:$2"
answer=$(cli "$1" "$2" cluster failover)
[ "$answer" = OK ] || { log "CLUSTER FAILOVER answered: $answer"; exit 0; }
deadline=$(($(date +%s) + ${REDIS_FAILOVER_WAIT_SECONDS:-30}))
while [ "$(date +%s)" -lt "$deadline" ]; do
  if [ "$(role)" = slave ]; then log "now a replica of $1:$2"; exit 0; fi
  sleep 1
done
log "still a master after the wait: stopping anyway"
exit 0
