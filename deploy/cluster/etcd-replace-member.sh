#!/usr/bin/env bash
# Makes room in etcd for the member of a node whose host was replaced and
# whose etcd data is gone (docs/operations/cluster.md, "Replacing a failed
# node"). Run it anywhere that reaches a surviving member: the old member
# (by its name or its peer URL) is removed, and a new one of the same name
# and peer URL is added, which the new host's etcd.sh then starts as with
# INITIAL_CLUSTER_STATE=existing and an empty MEMBER_DATA_DIR. Re-runnable:
# a member added but never started is removed and added again.
#
#   ENDPOINTS    a surviving member's client URL (http://host:2379), or several, comma-separated
#   MEMBER_NAME  the replaced member's name; PEER_URL its peer URL (http://host:2380)
set -euo pipefail
: "${ENDPOINTS:?}" "${MEMBER_NAME:?}" "${PEER_URL:?}"
ctl() { ETCDCTL_API=3 etcdctl --endpoints="$ENDPOINTS" --dial-timeout=5s --command-timeout=15s "$@"; }
# `member list`: "id, status, name, peer URLs, client URLs, is learner"; a
# member added but not started has no name yet.
ctl member list | awk -F', ' -v name="$MEMBER_NAME" -v peer="$PEER_URL" '$3 == name || $4 == peer { print $1 }' |
	while read -r id; do
		ctl member remove "$id" >/dev/null
		echo "removed member $id ($MEMBER_NAME)"
	done
ctl member add "$MEMBER_NAME" --peer-urls="$PEER_URL" >/dev/null
echo "added member $MEMBER_NAME ($PEER_URL): start its etcd.sh with INITIAL_CLUSTER_STATE=existing"
