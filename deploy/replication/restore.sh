#!/bin/sh
# Brings a fresh host to the state of the replica (LITESTREAM_REPLICA_URL), or
# of a `fax backup DIR` directory: the database at DATABASE_PATH, then every
# fax's PDF and thumbnail under STORAGE_DIR. Run it as the service's user
# before the server and replicate.sh start:
#   sudo -u testfax /opt/testfax-api/deploy/replication/restore.sh [BACKUP_DIR]
# It never overwrites a database: move an existing one away first, with its
# -wal and -shm. A restore that stopped half-way is simply run again.
set -eu
usage() {
	cat <<'USAGE'
usage: restore.sh [--generation ID | --time TIMESTAMP] [BACKUP_DIR]

Restores DATABASE_PATH and the files under STORAGE_DIR (settings file:
TESTFAX_SETTINGS, default /etc/testfax-api/testfax.env) from the replica
LITESTREAM_REPLICA_URL, or from BACKUP_DIR written by `fax backup`; says which
generation and point in time it restored, and how many faxes.

  --generation ID   restore this Litestream generation (list them with
                    `litestream generations`); the default is the newest,
                    refused when an older one holds more faxes
  --time TIMESTAMP  restore the replica as it was at TIMESTAMP (RFC 3339,
                    like 2026-11-26T10:00:00Z)
  -h, --help        this text

Exit codes: 0 restored, 1 refused or failed, 64 bad arguments.
USAGE
}
generation='' timestamp=''
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--generation | --time)
		if [ $# -lt 2 ]; then usage >&2; exit 64; fi
		if [ "$1" = --generation ]; then generation=$2; else timestamp=$2; fi
		shift 2 ;;
	--) shift; break ;;
	-*) echo "restore: unknown option $1 (restore.sh --help)" >&2; exit 64 ;;
	*) break ;;
	esac
done
if [ $# -gt 1 ] || { [ $# -eq 1 ] && [ -n "$generation$timestamp" ]; } || { [ -n "$generation" ] && [ -n "$timestamp" ]; }; then
	usage >&2
	exit 64
fi
# shellcheck source=deploy/replication/settings.sh
. "$(dirname -- "$(readlink -f -- "$0")")/settings.sh"
for leftover in "$DATABASE_PATH" "$DATABASE_PATH-wal" "$DATABASE_PATH-shm"; do
	if [ -e "$leftover" ]; then
		echo "restore: $leftover exists; this restores onto a fresh host only (move $DATABASE_PATH, its -wal and -shm away together first)" >&2
		exit 1
	fi
done
bun=$app/node_modules/.bin/bun
count() { "$bun" "$app/deploy/replication/count-faxes.ts" "$1"; }
# Restores the replica into $restoring, the generation or point in time asked
# for, and sets `source` to what it restored. Without either it takes
# Litestream's newest generation, but refuses when an older one lists more
# faxes: replication run against an empty or wrong database starts a newer
# generation that hides the real one.
restore_replica() {
	if [ -n "$timestamp" ]; then
		set -- -timestamp "$timestamp"
	elif [ -n "$generation" ]; then
		set -- -generation "$generation"
	else
		set --
	fi
	if ! log=$("$litestream" restore -config "$config" "$@" -o "$restoring" "$DATABASE_PATH" 2>&1); then
		printf '%s\n' "$log" >&2
		exit 1
	fi
	# Litestream 0.3.13 lists generations only beside an existing database file: the restored one.
	list=$(DATABASE_PATH=$restoring "$litestream" generations -config "$config" "$restoring")
	used=$(printf '%s\n' "$log" | sed -n 's/.*msg="restoring snapshot".* generation=\([0-9a-f]*\).*/\1/p' | head -n 1)
	end=$(printf '%s\n' "$list" | awk -v g="$used" '$2 == g { print $5 }')
	source="generation $used as of ${timestamp:-$end}"
	if [ -z "$generation$timestamp" ]; then
		newest=$(count "$restoring")
		for other in $(printf '%s\n' "$list" | awk -v g="$used" 'NR > 1 && $2 != g { print $2 }'); do
			older=0
			if "$litestream" restore -config "$config" -generation "$other" -o "$restoring.older" "$DATABASE_PATH" >/dev/null 2>&1; then
				older=$(count "$restoring.older")
			fi
			rm -f -- "$restoring.older" "$restoring.older-wal" "$restoring.older-shm"
			if [ "$older" -gt "$newest" ]; then
				rm -f -- "$restoring"
				echo "restore: the newest generation $used lists $newest faxes, the older $other $older; run again with --generation $other (or --generation $used)" >&2
				exit 1
			fi
		done
	fi
}
restoring=$DATABASE_PATH.restoring
rm -f -- "$restoring" "$restoring-wal" "$restoring-shm" "$restoring.older" "$restoring.older-wal" "$restoring.older-shm"
mkdir -p -- "$(dirname -- "$DATABASE_PATH")"
if [ $# -eq 1 ]; then
	cp -- "$1/faxes.sqlite" "$restoring"
	source="$1/faxes.sqlite"
else
	: "${LITESTREAM_REPLICA_URL:?replication: LITESTREAM_REPLICA_URL is not set in $settings}"
	restore_replica
fi
rm -f -- "$restoring.tmp-wal" "$restoring.tmp-shm"
chmod 0660 "$restoring"
faxes=$(count "$restoring")
DATABASE_PATH=$restoring "$bun" "$app/bin/fax.ts" restore-files
mv -- "$restoring" "$DATABASE_PATH"
echo "restore: $faxes faxes from $source; $DATABASE_PATH and the files under $STORAGE_DIR are in place; start the server and replicate.sh"
