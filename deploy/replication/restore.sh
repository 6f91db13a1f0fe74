#!/bin/sh
# Brings a fresh host to the state of the replica (LITESTREAM_REPLICA_URL), or
# of a `fax backup DIR` directory: the database at DATABASE_PATH, then every
# fax's PDF and thumbnail under STORAGE_DIR. Run it as the service's user
# before the server and replicate.sh start:
#   sudo -u testfax /opt/testfax-api/deploy/replication/restore.sh [BACKUP_DIR]
# It never overwrites a database: move an existing one away first. A restore
# that stopped half-way is simply run again.
set -eu
# shellcheck source=deploy/replication/settings.sh
. "$(dirname -- "$(readlink -f -- "$0")")/settings.sh"
if [ $# -gt 1 ]; then
	echo "usage: restore.sh [BACKUP_DIR]" >&2
	exit 64
fi
if [ -e "$DATABASE_PATH" ]; then
	echo "restore: $DATABASE_PATH exists; this restores onto a fresh host only (move it away first)" >&2
	exit 1
fi
restoring=$DATABASE_PATH.restoring
rm -f -- "$restoring" "$restoring-wal" "$restoring-shm"
mkdir -p -- "$(dirname -- "$DATABASE_PATH")"
if [ $# -eq 1 ]; then
	cp -- "$1/faxes.sqlite" "$restoring"
else
	: "${LITESTREAM_REPLICA_URL:?replication: LITESTREAM_REPLICA_URL is not set in $settings}"
	"$litestream" restore -config "$config" -o "$restoring" "$DATABASE_PATH"
fi
rm -f -- "$restoring.tmp-wal" "$restoring.tmp-shm"
chmod 0660 "$restoring"
DATABASE_PATH=$restoring "$app/node_modules/.bin/bun" "$app/bin/fax.ts" restore-files
mv -- "$restoring" "$DATABASE_PATH"
echo "restore: $DATABASE_PATH and the files under $STORAGE_DIR are in place; start the server and replicate.sh"
