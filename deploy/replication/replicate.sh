#!/bin/sh
# Streams the fax database, and with it every fax's files, to the replica
# LITESTREAM_REPLICA_URL names, until stopped (SIGTERM: Litestream syncs what
# is left, then exits). Run it as the service's user, beside the server:
#   sudo -u testfax /opt/testfax-api/deploy/replication/replicate.sh
# or with deploy/replication/testfax-replication.service.
# Litestream runs under watchdog.ts, which restarts it when its replica stops
# confirming what the database holds (Litestream 0.3.13 can hang silently on
# a failed SFTP upload) and serves its metrics, with the stall, at
# LITESTREAM_METRICS_ADDR (docs/operations/replication.md, "Backups and restore").
set -eu
# shellcheck source=deploy/replication/settings.sh
. "$(dirname -- "$(readlink -f -- "$0")")/settings.sh"
: "${LITESTREAM_REPLICA_URL:?replication: LITESTREAM_REPLICA_URL is not set in $settings}"
# exec: the stop signal reaches the watchdog, which stops Litestream.
exec "$app/node_modules/.bin/bun" "$app/deploy/replication/watchdog.ts" "$litestream" replicate -config "$config"
