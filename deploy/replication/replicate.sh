#!/bin/sh
# Streams the fax database, and with it every fax's files, to the replica
# LITESTREAM_REPLICA_URL names, until stopped (SIGTERM: Litestream syncs what
# is left, then exits). Run it as the service's user, beside the server:
#   sudo -u testfax /opt/testfax-api/deploy/replication/replicate.sh
# or with deploy/replication/testfax-replication.service.
set -eu
# shellcheck source=deploy/replication/settings.sh
. "$(dirname -- "$(readlink -f -- "$0")")/settings.sh"
: "${LITESTREAM_REPLICA_URL:?replication: LITESTREAM_REPLICA_URL is not set in $settings}"
# exec: the stop signal reaches Litestream itself.
exec "$litestream" replicate -config "$config"
