#!/usr/bin/env bash
# One etcd 3.4 member, Patroni's consensus store (docs/operations/cluster.md, "Three
# nodes: Patroni, etcd, HAProxy"). Run one per node, each with its own name
# and addresses and the same INITIAL_CLUSTER.
#
#   MEMBER_NAME, MEMBER_DATA_DIR, CLIENT_URL (http://host:2379), PEER_URL (http://host:2380)
#   INITIAL_CLUSTER  name=peer_url,name=peer_url,...
#   INITIAL_CLUSTER_STATE  new (the default) when the three start together;
#                  existing for a member that joins a running cluster
#                  (deploy/cluster/etcd-replace-member.sh added it)
set -euo pipefail
: "${MEMBER_NAME:?}" "${MEMBER_DATA_DIR:?}" "${CLIENT_URL:?}" "${PEER_URL:?}" "${INITIAL_CLUSTER:?}"
exec etcd --name "$MEMBER_NAME" --data-dir "$MEMBER_DATA_DIR" \
	--listen-client-urls "$CLIENT_URL" --advertise-client-urls "$CLIENT_URL" \
	--listen-peer-urls "$PEER_URL" --initial-advertise-peer-urls "$PEER_URL" \
	--initial-cluster "$INITIAL_CLUSTER" --initial-cluster-state "${INITIAL_CLUSTER_STATE:-new}" \
	--initial-cluster-token "${CLUSTER_TOKEN:-testfax}"
