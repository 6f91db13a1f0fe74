#!/usr/bin/env bash
# Prints the settings of the public HAProxy in front of the API instances of
# the three nodes (HTTP). It balances the instances' public ports and sends
# no request to an instance whose admin GET /readyz does not answer 200 (its
# database gone, or the instance draining): checked every 500 ms, out after
# one failed check, back after two good ones. A request that meets a failing
# instance anyway (it connects to none, gets no answer, or a 503) is tried
# again on another instance, up to three times: every API request is a read
# and may be repeated. Logs one line a request on standard output.
#
#   LISTEN_HOST   where HAProxy listens (127.0.0.1): the address clients are
#                 given, or 0.0.0.0 for every address of the host
#   PUBLIC_PORT   the public port, the one clients and the CDN are given
#   INSTANCES     name:host:port:admin_port, space-separated: each instance's
#                 public listener (HOST, PORT) and admin listener (ADMIN_HOST,
#                 ADMIN_PORT); ADMIN_HOST must be reachable from this host
#
# Each instance's TRUST_PROXY names the address this HAProxy connects from,
# so that it reads the client's address from X-Forwarded-For. Printed after
# haproxy-config.sh's output into one file, it adds a global section of its
# own (the log), which HAProxy merges with the first.
set -euo pipefail
: "${PUBLIC_PORT:?}" "${INSTANCES:?}"
cat <<CFG
global
    # No maxconn (nor in haproxy-config.sh's global section, which comes
    # first when both share a file): HAProxy derives it from its file
    # descriptor limit, about half of it, as each held wait keeps two open,
    # the client's and the instance's.
    log stdout format raw local0

defaults
    mode http
    log global
    option httplog
    # A cut-off instance answers no SYN: give up on it after 1 s and retry elsewhere.
    timeout connect 1s
    timeout client 60s
    # A list request with wait=30 (the most the API allows) is held until it
    # has news or until its time limit, 30 s at most: wait for it longer.
    timeout server 40s
    timeout check 1s
    timeout http-request 10s

frontend public
    bind ${LISTEN_HOST:-127.0.0.1}:${PUBLIC_PORT}
    default_backend api

backend api
    balance roundrobin
    option forwardfor
    # A new connection to the instance for each request, so that none is sent
    # on a connection to an instance that was cut off meanwhile (it would wait
    # for its answer instead of failing to connect).
    option http-server-close
    # A healthy instance answers a request without wait at once: one that
    # does not within 5 s is stuck, and the request is tried on another
    # rather than after the 40 s kept for held ones.
    http-request set-timeout server 5s unless { url_param(wait) -m found }
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout 503
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fall 1 rise 2
CFG
for instance in $INSTANCES; do
	IFS=: read -r name host port admin_port <<<"$instance"
	echo "    server ${name} ${host}:${port} check port ${admin_port}"
done
