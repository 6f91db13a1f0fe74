#!/usr/bin/env bash
# Prints HAProxy's settings for the cluster (docs/operations/cluster.md, "Three nodes:
# Patroni, etcd, HAProxy"): PRIMARY_PORT leads to whichever node Patroni's
# REST API calls the primary (GET /primary answers 200 there only), and
# connections to a node that stops being it are cut. On a node whose HAProxy
# is also the public front, front-haproxy-config.sh's output follows this in
# the same file: the global section here is that whole file's.
#
#   LISTEN_HOST   where HAProxy listens (127.0.0.1)
#   PRIMARY_PORT  the port the receivers' and commands' DATABASE_URL names
#   NODES         name:host:pg_port:rest_port, space-separated
set -euo pipefail
: "${PRIMARY_PORT:?}" "${NODES:?}"
cat <<CFG
global
    # No maxconn here: it would bound the public front too, whose held waits
    # keep two connections each. HAProxy derives the process's limit from its
    # file descriptor limit (about half of it); the route to the primary has
    # its own below.

defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 2s

listen primary
    bind ${LISTEN_HOST:-127.0.0.1}:${PRIMARY_PORT}
    # At most this many connections to the primary at once; more wait.
    maxconn 1000
    # Each check reads Patroni's whole answer (its JSON body names the
    # node's role; the status decides) and closes with a FIN: stopping at
    # the status line and closing with a RST made Patroni 3.0.2 log a
    # ConnectionResetError traceback for most checks.
    option httpchk
    http-check connect linger
    http-check send meth GET uri /primary
    http-check expect string role
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
CFG
for node in $NODES; do
	IFS=: read -r name host pg_port rest_port <<<"$node"
	echo "    server ${name} ${host}:${pg_port} check port ${rest_port}"
done
