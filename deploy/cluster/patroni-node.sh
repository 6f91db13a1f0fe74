#!/usr/bin/env bash
# One node of the three-node PostgreSQL cluster (docs/operations/cluster.md, "Three
# nodes: Patroni, etcd, HAProxy"): writes CONFIG, Patroni's settings for this
# node, from the environment, then runs Patroni on it. Run as the postgres
# user; re-runnable (the settings are written anew, the data is Patroni's).
#
#   NODE_NAME      this node's name in the cluster (node1, node2, node3)
#   NODE_HOST      the address the other nodes and HAProxy reach it at
#   PG_PORT        PostgreSQL's port; REST_PORT Patroni's REST API
#   DATA_DIR       PostgreSQL's data folder, created by Patroni; its parent
#                  is made here (/var/lib/postgresql/testfax/data: the postgres
#                  user's home is its own)
#   ETCD_HOSTS     etcd's client addresses, host:port,host:port
#   SUPERUSER_PASSWORD, REPLICATION_PASSWORD, FAX_PASSWORD
#   ALLOW_NETWORK  the network the nodes and API hosts are in (127.0.0.1/32)
#   SOCKET_DIR     where PostgreSQL puts its Unix socket (DATA_DIR's parent):
#                  local commands reach it with `psql -h "$SOCKET_DIR" -p "$PG_PORT"`
set -euo pipefail
config=${1:?usage: patroni-node.sh CONFIG}
: "${NODE_NAME:?}" "${NODE_HOST:?}" "${PG_PORT:?}" "${REST_PORT:?}" "${DATA_DIR:?}" "${ETCD_HOSTS:?}"
: "${SUPERUSER_PASSWORD:?}" "${REPLICATION_PASSWORD:?}" "${FAX_PASSWORD:?}"
network=${ALLOW_NETWORK:-127.0.0.1/32}
socket_dir=${SOCKET_DIR:-$(dirname "$DATA_DIR")}
pgpass="$(dirname "$config")/${NODE_NAME}.pgpass"

umask 077
# The socket's folder (DATA_DIR's parent by default) must be there before
# PostgreSQL starts, on a new node's clone too.
mkdir -p "$socket_dir" "$(dirname "$DATA_DIR")"
cat >"$config" <<YAML
scope: ${CLUSTER_SCOPE:-testfax}
name: ${NODE_NAME}
restapi:
  listen: ${NODE_HOST}:${REST_PORT}
  connect_address: ${NODE_HOST}:${REST_PORT}
etcd3:
  hosts: ${ETCD_HOSTS}
bootstrap:
  dcs:
    # A primary silent for ttl seconds is replaced.
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    # A commit returns once a standby has it; with no standby reachable,
    # writes wait (strict) rather than be acknowledged from one host.
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        synchronous_commit: "on"
  initdb:
    - encoding: UTF8
    - locale: C
    - data-checksums
  pg_hba:
    - local all all trust
    - host replication replicator ${network} scram-sha-256
    - host all all ${network} scram-sha-256
  users:
    testfax:
      password: ${FAX_PASSWORD}
      options:
        - createdb
postgresql:
  listen: ${NODE_HOST}:${PG_PORT}
  connect_address: ${NODE_HOST}:${PG_PORT}
  data_dir: ${DATA_DIR}
  bin_dir: ${PG_BIN:-/usr/lib/postgresql/15/bin}
  pgpass: ${pgpass}
  authentication:
    superuser:
      username: postgres
      password: ${SUPERUSER_PASSWORD}
    replication:
      username: replicator
      password: ${REPLICATION_PASSWORD}
    rewind:
      username: postgres
      password: ${SUPERUSER_PASSWORD}
  parameters:
    unix_socket_directories: ${socket_dir}
  # A new or replaced node's clone starts at once instead of after the
  # leader's next spread checkpoint (90 s and more when it was tried).
  basebackup:
    - checkpoint: fast
tags:
  nofailover: false
  noloadbalance: false
YAML
exec patroni "$config"
