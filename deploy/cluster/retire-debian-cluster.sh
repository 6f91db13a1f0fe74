#!/usr/bin/env bash
# Retires the cluster Debian's postgresql-15 package creates (`15 main`, on
# port 5432, started by postgresql.service) on a node whose PostgreSQL is
# Patroni's (docs/operations/cluster.md, "Running it under systemd"): stopped,
# and never started again by systemd or pg_ctlcluster's boot script. Its data
# folder is kept. Re-runnable; run as root.
#
#   PG_CLUSTER_CONF_ROOT  where Debian keeps the clusters' settings (/etc/postgresql)
set -euo pipefail
conf_root=${PG_CLUSTER_CONF_ROOT:-/etc/postgresql}
start_conf=$conf_root/15/main/start.conf
if [ ! -f "$start_conf" ]; then
	echo "no cluster 15 main (${start_conf} missing): nothing to retire"
	exit 0
fi
if pg_lsclusters --no-header 2>/dev/null | awk '$1 == 15 && $2 == "main" && $4 == "online"' | grep -q .; then
	pg_ctlcluster 15 main stop
fi
if [ "$(grep -v '^#' "$start_conf" | tr -d '[:space:]')" != disabled ]; then
	printf '%s\n' "# Retired by testfax-api's deploy/cluster/retire-debian-cluster.sh: Patroni runs this node's PostgreSQL." disabled >"$start_conf"
fi
echo "cluster 15 main: stopped, start.conf disabled"
