#!/usr/bin/env bash
# Prints HAProxy's settings for the cluster (docs/operations/cluster.md, "Three nodes:
# Patroni, etcd, HAProxy"): PRIMARY_PORT leads to whichever node Patroni's
# REST API calls the primary (GET /primary answers 200 there only), and
# connections to a node that stops being it are cut.
#
#   LISTEN_HOST   where HAProxy listens (127.0.0.1)
#   PRIMARY_PORT  the port the receivers' and commands' DATABASE_URL names
#   NODES         name:host:pg_port:rest_port, space-separated
set -euo pipefail
: "${PRIMARY_PORT:?}" "${NODES:?}"
cat <<CFG
global
    maxconn 1000

defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 2s

listen primary
    bind ${LISTEN_HOST:-127.0.0.1}:${PRIMARY_PORT}
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
CFG
for node in $NODES; do
	IFS=: read -r name host pg_port rest_port <<<"$node"
	echo "    server ${name} ${host}:${pg_port} check port ${rest_port}"
done
