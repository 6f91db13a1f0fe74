#!/usr/bin/env bash
# One etcd 3.4 member, Patroni's consensus store (docs/operations/cluster.md, "Three
# nodes: Patroni, etcd, HAProxy"). Run one per node, each with its own name
# and addresses and the same INITIAL_CLUSTER.
#
#   MEMBER_NAME      this member's name (etcd-node1)
#   MEMBER_DATA_DIR  its data, a folder the etcd user may create
#                    (/var/lib/etcd/testfax: /var/lib/etcd is etcd's)
#   CLIENT_URL, PEER_URL  http://IP:2379 and http://IP:2380 with this node's
#                    IP address: etcd 3.4 listens on an address, never a name
#                    ("expected IP in URL for binding"), so this refuses one
#   INITIAL_CLUSTER  name=peer_url,name=peer_url,...
#   INITIAL_CLUSTER_STATE  new (the default) when the three start together;
#                  existing for a member that joins a running cluster
#                  (deploy/cluster/etcd-replace-member.sh added it)
set -euo pipefail
: "${MEMBER_NAME:?}" "${MEMBER_DATA_DIR:?}" "${CLIENT_URL:?}" "${PEER_URL:?}" "${INITIAL_CLUSTER:?}"
for name in CLIENT_URL PEER_URL; do
	host=${!name#*://}
	host=${host%%/*}
	host=${host%:*}
	if ! [[ $host =~ ^[0-9]+(\.[0-9]+){3}$ || $host =~ ^\[[0-9A-Fa-f:.]+\]$ ]]; then
		echo "etcd.sh: ${name} (${!name}) names no IP address: etcd 3.4 listens only on one (http://10.0.0.1:2379)" >&2
		exit 2
	fi
done
# --pre-vote (etcd 3.5's default, off in 3.4): a member back from a network cut
# asks before it campaigns, so the higher term it counted up alone does not
# depose etcd's leader and hold etcd from Patroni while it elects again.
# Without it, 2 of 4 runs of the test's 25 s cut ended with the old primary
# leading on a new timeline and neither standby following
# (docs/operations/cluster.md).
exec etcd --name "$MEMBER_NAME" --data-dir "$MEMBER_DATA_DIR" --pre-vote \
	--listen-client-urls "$CLIENT_URL" --advertise-client-urls "$CLIENT_URL" \
	--listen-peer-urls "$PEER_URL" --initial-advertise-peer-urls "$PEER_URL" \
	--initial-cluster "$INITIAL_CLUSTER" --initial-cluster-state "${INITIAL_CLUSTER_STATE:-new}" \
	--initial-cluster-token "${CLUSTER_TOKEN:-testfax}"
