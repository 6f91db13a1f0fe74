#!/bin/sh
# Makes this Debian 12 host run an API instance of testfax-api
# (docs/operations/instance.md, "The instance as a service"). Run as root;
# run again whenever you like: a second run changes nothing.
# Usage: install-instance.sh --help
set -eu

usage() {
	cat <<'USAGE'
Usage: deploy/runtime/install-instance.sh [--app DIR] [--no-start]

Installs, on Debian 12, as root, the API instance of an API host:
  user       testfax, a system user in no other group
  settings   /etc/testfax-api/testfax.env from deploy/receivers/testfax.env,
             root:testfax 0640, when it is missing (an existing one is kept:
             edit it), the receivers' queues left out
  folders    those of its DATABASE_PATH and STORAGE_DIR, testfax:testfax 2770
  unit       with systemd, testfax-api.service (deploy/runtime/testfax-api.service,
             bin/testfax server as testfax), enabled and started; restarted
             when the unit changed (an upgrade into another folder)
It refuses, with one line, to overwrite a unit someone changed since it wrote
it, and to start from a checkout whose document pipeline does not load.
A receivers host needs none of this: deploy/receivers/install.sh does it too.

Options:
  --app DIR   the checkout the instance runs (default: the one this script
              is in), with npm ci done
  --no-start  install only: start nothing (then edit the settings and run
              it again without --no-start, or systemctl enable --now testfax-api)
  --help      this text
USAGE
}

say() { printf 'install-instance.sh: %s\n' "$*"; changed=$((changed + 1)); }
die() {
	printf 'install-instance.sh: %s\n' "$*" >&2
	exit 1
}

changed=0
app=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd)
start=yes
while [ $# -gt 0 ]; do
	case $1 in
	--app) app=$(readlink -f -- "${2:?--app needs a folder}"); shift ;;
	--no-start) start=no ;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ "$(id -u)" -eq 0 ] || die "run me as root"

SETTINGS=/etc/testfax-api/testfax.env
STATE=/etc/testfax-api/installed
systemd=no
[ -d /run/systemd/system ] && systemd=yes
# The steps and the unit, from this script's own folder (not --app's).
runtime=$(dirname -- "$(readlink -f -- "$0")")
# shellcheck source=deploy/runtime/instance-lib.sh
. "$runtime/instance-lib.sh"

check_app
make_service_user
install_settings instance
make_data_dirs
install_api_unit
[ "$api_unit_changed" = no ] || systemctl daemon-reload

if [ "$start" = yes ] && [ "$systemd" = yes ]; then
	if ! systemctl is-enabled --quiet testfax-api; then
		systemctl enable --quiet testfax-api
		say "enabled testfax-api.service"
	fi
	if ! systemctl is-active --quiet testfax-api; then
		systemctl start testfax-api
		say "started testfax-api.service"
	elif [ "$api_unit_changed" = yes ]; then
		systemctl restart testfax-api
		say "restarted testfax-api.service (its unit changed)"
	fi
fi
if [ "$changed" -eq 0 ]; then echo "install-instance.sh: nothing to change"; fi
if [ "$start" = yes ] && [ "$systemd" = no ]; then
	echo "install-instance.sh: no systemd on this host: nothing started (run $app/bin/testfax server as testfax under your own supervisor)"
fi
