# shellcheck shell=sh disable=SC2154 # its variables are install.sh's
# The steps of install.sh (sourced by it; its variables are set). Each step
# checks before it changes, says what it changed, and changes nothing the
# second time. Those of the API instance (the user testfax, the settings
# file, the data folders, testfax-api.service, put_file) are
# deploy/runtime/instance-lib.sh's, shared with install-instance.sh.

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }

install_packages() {
	# procps: pgrep, which a minimal Debian lacks, for the daemons of daemons.sh.
	# inotify-tools: inotifywait, call-watch's ear on HylaFAX's session logs.
	wanted="postfix hylafax-server hylafax-client cron sudo ssl-cert util-linux procps inotify-tools"
	[ -z "$soft_modems" ] || wanted="$wanted iaxmodem"
	[ "$systemd" = yes ] || wanted="$wanted busybox"
	missing=""
	for package in $wanted; do installed "$package" || missing="$missing $package"; done
	[ -n "$missing" ] || return 0
	# Postfix's one question, answered: a mail server of its own; its mail
	# name is this host's, never the fax domain (that would make it local).
	printf '%s\n' "postfix postfix/main_mailer_type select Internet Site" \
		"postfix postfix/mailname string $(hostname --fqdn 2>/dev/null || hostname)" | debconf-set-selections
	apt-get update -qq
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
	say "installed$missing"
}

# The items of a Postfix list, one a line.
items() { tr -s ', \t' '\n' | grep -v '^$'; }

# postconf_set NAME VALUE [DEFAULTS]: set unless it holds VALUE; refuse an
# operator's own value, but not one of DEFAULTS, the space-separated values
# Debian's postfix package writes into a new main.cf itself.
postconf_set() {
	current=$(postconf -h "$1")
	[ "$current" != "$2" ] || return 0
	if postconf -n "$1" | grep -q .; then
		case " ${3-} " in
		*" $current "*) ;;
		*) die "Postfix's $1 is \"$current\", set by someone else; install.sh wants \"$2\" (set it, or take it out of main.cf)" ;;
		esac
	fi
	postconf -e "$1 = $2"
	say "Postfix: $1 = $2"
	postfix_changed=yes
}

# postconf_add NAME ITEM: ITEM added to the list NAME unless it is in it.
postconf_add() {
	current=$(postconf -h "$1")
	printf '%s\n' "$current" | items | grep -qxF "$2" && return 0
	postconf -e "$1 = ${current:+$current, }$2"
	say "Postfix: $2 added to $1"
	postfix_changed=yes
}

configure_postfix() {
	postfix_changed=no
	domains=$(for a in $addresses; do printf '%s\n' "${a#*@}"; done | sort -u)
	install -d -m 0755 /etc/postfix/testfax
	for a in $addresses; do printf '%s\ttestfax:\n' "$a"; done | put_file /etc/postfix/testfax/transport 0644 root:root
	for a in $addresses; do printf '%s\tOK\n' "$a"; done | put_file /etc/postfix/testfax/relay_recipients 0644 root:root
	# smtpd logs a line for each test address it accepts: mail-watch follows a
	# message from it to a refusal or a broken-off transfer (lib/ingest/postfix-log.ts).
	for a in $addresses; do printf '%s\tWARN testfax test address\n' "$a"; done |
		put_file /etc/postfix/testfax/watch 0644 root:root
	for map in transport relay_recipients watch; do
		source=/etc/postfix/testfax/$map
		if [ ! -e "$source.db" ] || [ -n "$(find "$source" -newer "$source.db")" ]; then
			postmap "/etc/postfix/testfax/$map"
			postfix_changed=yes
		fi
	done
	postconf_add transport_maps hash:/etc/postfix/testfax/transport
	postconf_add relay_recipient_maps hash:/etc/postfix/testfax/relay_recipients
	add_watch_map
	for domain in $domains; do
		postconf_add relay_domains "$domain"
		keep_out_of_mydestination "$domain"
	done
	# A new main.cf says "all" (Debian's "Internet Site"): --inet-interfaces decides.
	postconf_set inet_interfaces "$interfaces" "localhost all"
	postconf_set enable_long_queue_ids yes
	# A 40 MiB attachment is about 55 MiB in base64 (docs/operations/receivers.md).
	postconf_set message_size_limit 62914560 10240000
	mailbox=$(postconf -h mailbox_size_limit)
	[ "$mailbox" -eq 0 ] || [ "$mailbox" -ge 62914560 ] ||
		die "Postfix's mailbox_size_limit ($mailbox) is below message_size_limit 62914560: raise it or set it to 0"
	configure_postfix_tls
	# A file, which mail-watch follows, with or without systemd's journal: an
	# operator's own choice stays, unless its folder is gone (Postfix would not start).
	log=$(postconf -h maillog_file)
	[ -z "$log" ] || [ -d "$(dirname -- "$log")" ] || postconf_set maillog_file /var/log/mail.log "$log"
	[ -n "$(postconf -h maillog_file)" ] || postconf_set maillog_file /var/log/mail.log
	# It holds raw sender addresses: root and adm (mail-watch's user) only.
	log=$(postconf -h maillog_file)
	[ -e "$log" ] || install -m 0640 -o root -g adm /dev/null "$log"
	configure_pipe
	if [ "$postfix_changed" = yes ] && postfix status >/dev/null 2>&1; then
		out=$(postfix reload 2>&1) || die "postfix reload failed: $out"
		say "Postfix reloaded"
	fi
}

# The watch map first among the recipient restrictions: its WARN decides
# nothing, so whatever the operator's own restrictions say still holds.
add_watch_map() {
	current=$(postconf -h smtpd_recipient_restrictions)
	printf '%s\n' "$current" | items | grep -qxF hash:/etc/postfix/testfax/watch && return 0
	postconf -e "smtpd_recipient_restrictions = check_recipient_access hash:/etc/postfix/testfax/watch${current:+, $current}"
	say "Postfix: the watch map added to smtpd_recipient_restrictions"
	postfix_changed=yes
}

keep_out_of_mydestination() {
	listed=$(postconf -h mydestination | items)
	if printf '%s\n' "$listed" | grep -qxF "$1"; then
		postconf -e "mydestination = $(printf '%s\n' "$listed" | grep -vxF "$1" | paste -sd, - | sed 's/,/, /g')"
		say "Postfix: $1 taken out of mydestination (a local domain never reaches the fax transport)"
		postfix_changed=yes
	fi
	postconf -x -h mydestination | items | grep -qxF "$1" &&
		die "Postfix's mydestination makes $1 local (through \$myhostname or \$mydomain): give this host another name, or the fax addresses another domain"
	return 0
}

configure_postfix_tls() {
	postconf_set smtpd_tls_received_header yes
	[ -z "$(postconf -h smtpd_tls_cert_file)" ] || return 0
	[ -e /etc/ssl/certs/ssl-cert-snakeoil.pem ] || make-ssl-cert generate-default-snakeoil
	postconf_set smtpd_tls_cert_file /etc/ssl/certs/ssl-cert-snakeoil.pem
	postconf_set smtpd_tls_key_file /etc/ssl/private/ssl-cert-snakeoil.key
	postconf_set smtpd_tls_security_level may
}

# The pipe of master.cf, as testfax with its own group only. flags=R
# prepends Return-Path with the envelope sender, which the checks of an email
# test need (SPF; Postfix drops any Return-Path a client sent).
configure_pipe() {
	want="testfax unix - n n - - pipe flags=R user=testfax argv=$HERE/postfix/testfax-mail \${queue_id}"
	have=$(postconf -M testfax/unix 2>/dev/null | tr -s ' \t' '  ')
	[ "$have" != "$want" ] || return 0
	# Ours to replace: the line this script wrote from any folder (an upgrade
	# into a new release folder), with or without flags=R, and the one of the
	# file-by-file set-up of earlier docs.
	case $have in
	'' | "testfax unix - n n - - pipe "*"user=testfax"*" argv=/"*"/deploy/receivers/postfix/testfax-mail \${queue_id}") ;;
	*) die "master.cf's testfax service was changed by someone else: not overwriting \"$have\"" ;;
	esac
	postconf -M "testfax/unix=$want"
	say "Postfix: master.cf service testfax, user=testfax"
	postfix_changed=yes
}

iaxmodem_config() {
	port=$((4570 + ${1#ttyIAX}))
	server=127.0.0.1
	# The second modem dials the first directly: no PBX.
	[ "$1" = ttyIAX0 ] || server=127.0.0.1:4570
	printf '%s\n' "# Written by testfax-api's deploy/receivers/install.sh." "device /dev/$1" \
		"owner uucp:uucp" "mode 660" "port $port" "refresh 0" "server $server" "peername iaxmodem" \
		"secret password" "cidname Test Sender" "cidnumber 15550100" "codec slinear"
}

configure_hylafax() {
	faxrcvd="FaxRcvdCmd: $HERE/hylafax/faxrcvd"
	for tty in $soft_modems; do
		install -d -m 0755 /etc/iaxmodem
		# It holds the IAX2 secret: not for every local user.
		iaxmodem_config "$tty" | put_file "/etc/iaxmodem/$tty" 0640 root:root
		{
			echo "# Written by testfax-api's deploy/receivers/install.sh, from iaxmodem's example."
			grep -v '^#' /usr/share/doc/iaxmodem/examples/config.ttyIAX | grep -v '^$'
			[ "$tty" != ttyIAX0 ] || echo "$faxrcvd"
		} | put_file "/etc/hylafax/config.$tty" 0644 root:root
	done
	[ -n "$soft_modems" ] || for modem in $modems; do add_faxrcvdcmd "$modem"; done
	install -d -m 0700 -o uucp -g uucp "$SPOOL/recvq/listed"
	# Made by whoever numbers first: by root (a send by hand), uucp could not
	# number the next call, and faxgetty's session log would be missing.
	for seqf in "$SPOOL/log/seqf" "$SPOOL/recvq/seqf"; do
		[ -e "$seqf" ] && continue
		echo 0 >"$seqf"
		chown uucp:uucp "$seqf"
		say "made $seqf"
	done
	# Files root left (a daemon or a send started by hand) that uucp must
	# reopen: the sequence files, and faxes to hand over.
	rooted=$(find "$SPOOL/log/seqf" "$SPOOL/recvq" -maxdepth 1 \( -name seqf -o -name 'fax*.tif' \) -user root)
	if [ -n "$rooted" ]; then
		printf '%s\n' "$rooted" | xargs chown uucp:uucp
		say "gave uucp what root had left in the spool: $(printf "%s" "$rooted" | tr "\n" " ")"
	fi
	copy_hylafax_config
}

add_faxrcvdcmd() {
	config=/etc/hylafax/config.$1
	[ -f "$config" ] || die "no $config: set the modem $1 up first (faxaddmodem $1)"
	have=$(grep '^FaxRcvdCmd:' "$config" | tr -s ' \t' '  ' || true)
	[ "$have" != "$faxrcvd" ] || return 0
	case $have in
	'') printf '%s\n' "$faxrcvd" >>"$config" ;;
	# Ours, written from another folder: now this one's.
	"FaxRcvdCmd: /"*"/deploy/receivers/hylafax/faxrcvd")
		tmp=$(mktemp)
		grep -v '^FaxRcvdCmd:' "$config" >"$tmp"
		printf '%s\n' "$faxrcvd" >>"$tmp"
		cat "$tmp" >"$config"
		rm -f "$tmp"
		;;
	*) die "$config runs its own FaxRcvdCmd ($have): not replacing it" ;;
	esac
	say "$config: $faxrcvd"
}

# Without systemd nothing bind-mounts /etc/hylafax into the spool: a copy,
# made after every change there, or faxgetty reads the old one.
copy_hylafax_config() {
	mountpoint -q "$SPOOL/etc" && return 0
	if diff -r /etc/hylafax "$SPOOL/etc" 2>/dev/null | grep -qv "^Only in $SPOOL/etc"; then
		cp -a /etc/hylafax/. "$SPOOL/etc"
		say "copied /etc/hylafax to $SPOOL/etc"
	fi
}

# Postfix's log reader: a user of its own in adm, the group that may read
# the logs, so that neither testfax nor Postfix's users can.
add_log_reader() {
	id -u testfax-maillog >/dev/null 2>&1 && return 0
	useradd --system --user-group --groups adm --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin testfax-maillog
	say "user testfax-maillog (group adm: reads Postfix's log for mail-watch)"
}

install_hand_over() {
	add_log_reader
	for path in "$app" "$HAND_OVER" "$HERE/hylafax/faxrcvd" "$HERE/postfix/testfax-mail" \
		"$HERE/postfix/mail-watch" "$HERE/postfix/watch-mail" "$app/bin/testfax"; do
		for user in uucp testfax testfax-maillog; do
			! setpriv --reuid="$user" --regid="$user" --init-groups test -w "$path" ||
				die "$user may write $path: the hand-over would let it run anything as testfax"
		done
	done
	tmp=$(mktemp)
	{
		echo "# Written by testfax-api's deploy/receivers/install.sh: HylaFAX's faxrcvd (uucp)"
		echo "# hands a received fax to the service's user, with this one command only."
		echo "# No terminal, no PAM session: standard input stays the received file, and"
		echo "# the hand-over does not wait for a session to open (docs/decisions.md);"
		echo "# descriptor 3 may stay open (sudo -C 4): the call's session log."
		echo "Defaults!$HAND_OVER !use_pty, !pam_session, closefrom_override"
		echo "uucp ALL=(testfax) NOPASSWD: $HAND_OVER"
		echo "# Postfix's log reader (mail-watch) hands smtpd's lines over, with this one command only."
		echo "Defaults!$HERE/postfix/watch-mail !use_pty, !pam_session"
		echo "testfax-maillog ALL=(testfax) NOPASSWD: $HERE/postfix/watch-mail"
	} >"$tmp"
	visudo -cqf "$tmp" || die "sudoers rule for $HAND_OVER refused by visudo"
	put_file /etc/sudoers.d/testfax 0440 root:root <"$tmp"
	rm -f "$tmp"
	{
		echo "# Written by testfax-api's deploy/receivers/install.sh."
		echo "# Every minute: hand over the received faxes whose first hand-over failed,"
		echo "# and the calls that failed before any FaxRcvdCmd (their session logs)."
		echo "* * * * * uucp $HERE/hylafax/faxrcvd"
		echo "# Daily: the received files handed over, and the marks of calls, kept 30 days."
		echo "17 4 * * * uucp find $SPOOL/recvq/listed \\( -name 'fax*.tif' -o -name 'c[0-9]*' \\) -mtime +30 -delete"
	} | put_file /etc/cron.d/testfax 0644 root:root
}

install_unit() {
	[ "$systemd" = yes ] || return 0
	{
		echo "# Written by testfax-api's deploy/receivers/install.sh: a call that failed"
		echo "# in the handshake, listed as HylaFAX ends it (docs/operations/receivers.md)."
		echo "[Unit]"
		echo "Description=testfax-api call-watch"
		echo "[Service]"
		echo "User=uucp"
		echo "Group=uucp"
		echo "ExecStart=$HERE/hylafax/call-watch"
		echo "Restart=always"
		echo "[Install]"
		echo "WantedBy=multi-user.target"
	} | put_file /etc/systemd/system/testfax-call-watch.service 0644 root:root
	{
		echo "# Written by testfax-api's deploy/receivers/install.sh: a message to a test"
		echo "# address Postfix did not take whole, listed (docs/operations/receivers.md)."
		echo "[Unit]"
		echo "Description=testfax-api mail-watch"
		echo "After=postfix.service"
		echo "[Service]"
		echo "User=testfax-maillog"
		echo "Group=testfax-maillog"
		echo "SupplementaryGroups=adm"
		echo "ExecStart=$HERE/postfix/mail-watch"
		echo "Restart=always"
		echo "[Install]"
		echo "WantedBy=multi-user.target"
	} | put_file /etc/systemd/system/testfax-mail-watch.service 0644 root:root
	install_api_unit
	systemctl daemon-reload
}
