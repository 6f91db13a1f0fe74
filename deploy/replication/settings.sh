# shellcheck shell=sh
# Sourced by replicate.sh and restore.sh: the settings file every part of the
# service reads (bin/testfax), the Litestream binary and its configuration.
# Sets app, litestream and config, and exports the settings.
settings=${TESTFAX_SETTINGS:-/etc/testfax-api/testfax.env}
app=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd)
litestream=$app/node_modules/@flydotio/litestream-linux-x64/litestream
# shellcheck disable=SC2034 # used by the scripts that source this
config=$app/deploy/replication/litestream.yml
if [ ! -x "$litestream" ]; then
	echo "replication: litestream not found at $litestream (run npm ci in $app)" >&2
	exit 69
fi
if [ ! -r "$settings" ]; then
	echo "replication: the settings file $settings is missing or not readable by $(id -un)" >&2
	exit 78
fi
set -a
# shellcheck disable=SC1090
. "$settings"
set +a
: "${DATABASE_PATH:?replication: DATABASE_PATH is not set in $settings}"
: "${STORAGE_DIR:?replication: STORAGE_DIR is not set in $settings}"
export LITESTREAM_REPLICA_URL="${LITESTREAM_REPLICA_URL-}" LITESTREAM_SFTP_KEY="${LITESTREAM_SFTP_KEY-}" LITESTREAM_METRICS_ADDR="${LITESTREAM_METRICS_ADDR-}"
umask 007
