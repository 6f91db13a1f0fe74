#!/bin/sh
# Makes this Debian 12 host a receivers host for testfax-api: Postfix and
# HylaFAX hand what they receive to the service (docs/operations/receivers.md).
# Run as root, again whenever you like: a second run changes nothing.
# Usage: install.sh --help
set -eu

usage() {
	cat <<'EOF'
Usage: deploy/receivers/install.sh [OPTION]...
       deploy/receivers/install.sh --start | --stop | --status | --restart server

Installs and configures, on Debian 12, as root, with or without systemd:
  packages   postfix, hylafax-server, hylafax-client, iaxmodem, cron, sudo,
             ssl-cert, procps, inotify-tools (and busybox for a syslog daemon
             without systemd)
  Postfix    the fax addresses piped to the service (master.cf "testfax"),
             STARTTLS with a TLS note in Received, messages up to 60 MiB
  HylaFAX    FaxRcvdCmd of each receiving modem; without --modem, two
             iaxmodems calling each other on loopback (ttyIAX1 dials ttyIAX0)
  hand-over  /etc/sudoers.d/testfax: uucp may run exactly one command as
             testfax; /etc/cron.d/testfax: the sweep of the receive queue;
             call-watch (as uucp; a unit with systemd): a call that failed in
             the handshake, listed as HylaFAX ends it; mail-watch (as
             testfax-maillog, group adm; a unit with systemd): a message to
             a fax address Postfix refused or that broke off, listed
  service    the user testfax, /etc/testfax-api/testfax.env (kept when it
             exists), its data folders, the unit testfax-api.service: the
             steps of deploy/runtime/install-instance.sh
then starts what is not running. It refuses, with one line, to overwrite a
file or setting that someone changed since it wrote it.

Options:
  --address ADDR      a fax address (repeat for more; default fax@test.example)
  --modem NAME        a receiving modem already set up with faxaddmodem
                      (repeat for more); no iaxmodems are made then
  --app DIR           the checkout the receivers run (default: the one this
                      script is in), with npm ci done
  --inet-interfaces V Postfix's inet_interfaces (default loopback-only;
                      "all" for a public mail server)
  --no-start          configure only
  --start             check that the document pipeline loads (fax check; it
                      refuses with one line when not), then start the
                      daemons (without systemd: those not running)
  --stop              stop what --start started (nothing else; the syslog
                      daemon it started keeps running)
  --status            one line per daemon: Postfix, cron, faxq, each
                      iaxmodem, each faxgetty, call-watch, mail-watch, the
                      API server;
                      exit 0 when all run, 3 when any one does not
  --restart server    restart the API server alone (after editing the
                      settings file), with or without systemd
  --help              this text

hfaxd (HylaFAX's client protocol, for sendfax on this host) listens on
127.0.0.1 only. The logs holding raw sender addresses are root:adm 0640.

Logs without systemd: HylaFAX and the hand-overs in /var/log/syslog (tag
testfax), Postfix in /var/log/mail.log, the API server in
/var/log/testfax-api.log, iaxmodem in /var/log/iaxmodem/.
EOF
}

say() { printf 'install.sh: %s\n' "$*"; changed=$((changed + 1)); }
die() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

changed=0
addresses=""
modems=""
app=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0")")/../.." && pwd)
interfaces=loopback-only
action=install
while [ $# -gt 0 ]; do
	case $1 in
	--address) addresses="$addresses ${2:?--address needs an address}"; shift ;;
	--modem) modems="$modems ${2:?--modem needs a name}"; shift ;;
	--app) app=$(readlink -f -- "${2:?--app needs a folder}"); shift ;;
	--inet-interfaces) interfaces=${2:?--inet-interfaces needs a value}; shift ;;
	--no-start) action=configure ;;
	--start) action=start ;;
	--stop) action=stop ;;
	--status) action=status ;;
	--restart)
		[ "${2-}" = server ] || die "--restart takes one word: server"
		action=restart
		shift
		;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ -n "$addresses" ] || addresses=fax@test.example
soft_modems=""
[ -n "$modems" ] || soft_modems="ttyIAX0 ttyIAX1"
[ -n "$modems" ] || modems=ttyIAX0
[ "$(id -u)" -eq 0 ] || die "run me as root"

SPOOL=/var/spool/hylafax
SETTINGS=/etc/testfax-api/testfax.env
STATE=/etc/testfax-api/installed
RUN=/run/testfax-receivers
HERE=$app/deploy/receivers
HAND_OVER=$HERE/hylafax/hand-over
systemd=no
[ -d /run/systemd/system ] && systemd=yes

# The steps, from this script's own folder (not --app's): the script run is the one read.
lib=$(dirname -- "$(readlink -f -- "$0")")
# The API instance's steps, shared with deploy/runtime/install-instance.sh.
runtime=$(dirname -- "$lib")/runtime
# shellcheck source=deploy/runtime/instance-lib.sh
. "$runtime/instance-lib.sh"
# shellcheck source=deploy/receivers/install-lib.sh
. "$lib/install-lib.sh"
# shellcheck source=deploy/receivers/daemons.sh
. "$lib/daemons.sh"

case $action in
start) start_all; exit 0 ;;
stop) stop_all; exit 0 ;;
status) status_all && exit 0 || exit 3 ;;
restart) restart_server; exit 0 ;;
esac

check_app
install_packages
make_service_user
install_settings receivers
make_data_dirs
configure_postfix
configure_hylafax
install_hand_over
install_unit
if [ "$changed" -eq 0 ]; then echo "install.sh: nothing to change"; fi
[ "$action" = configure ] || start_all
