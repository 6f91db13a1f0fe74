# shellcheck shell=sh disable=SC2154 # its variables are install.sh's
# install.sh --start, --stop, --status (sourced by it). With systemd, the
# units. Without, the daemons themselves: each one --start started has its
# process id in $RUN, and --stop ends those and nothing else, so a daemon
# that ran before (an operator's cron, say) keeps running.

# shellcheck disable=SC2086 # the lists, one word per modem
receiving_ttys() { printf '%s\n' $modems $soft_modems | sort -u; }

alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

# spawn NAME COMMAND...: in the background, in a session of its own.
spawn() {
	name=$1
	shift
	setsid "$@" </dev/null >/dev/null 2>&1 &
	echo "$!" >"$RUN/$name.pid"
	echo "install.sh: started $name"
}

# adopt NAME PROGRAM: a daemon that forks itself; its id once it is there.
adopt() {
	tries=0
	until pid=$(pgrep -n -x "$2"); do
		tries=$((tries + 1))
		[ "$tries" -lt 50 ] || die "$2 did not start (see /var/log/syslog)"
		sleep 0.1
	done
	echo "$pid" >"$RUN/$1.pid"
	echo "install.sh: started $1"
}

start_all() {
	if [ "$systemd" = yes ]; then
		units="postfix cron testfax-api"
		[ -z "$soft_modems" ] || units="$units iaxmodem"
		for tty in $(receiving_ttys); do units="$units faxgetty@$tty"; done
		# shellcheck disable=SC2086 # one word per unit
		systemctl enable --now --quiet $units hylafax faxq hfaxd
		return 0
	fi
	install -d -m 0700 "$RUN"
	if ! { alive syslogd || pgrep -f syslogd >/dev/null; }; then
		spawn syslogd busybox syslogd -n -O /var/log/syslog
		sleep 0.2
	fi
	pgrep -x cron >/dev/null || { cron && adopt cron cron; }
	if ! postfix status >/dev/null 2>&1; then
		out=$(postfix start 2>&1) || die "postfix start failed: $out"
		touch "$RUN/postfix.started"
		echo "install.sh: started postfix"
	fi
	for tty in $soft_modems; do alive "iaxmodem-$tty" || spawn "iaxmodem-$tty" iaxmodem "$tty"; done
	pgrep -x faxq >/dev/null || { env -i /usr/sbin/faxq && adopt faxq faxq; }
	pgrep -x hfaxd >/dev/null || { env -i /usr/sbin/hfaxd -i 4559 && adopt hfaxd hfaxd; }
	for tty in $(receiving_ttys); do
		alive "faxgetty-$tty" || spawn "faxgetty-$tty" env -i /usr/sbin/faxgetty "$tty"
	done
	start_server
}

start_server() {
	alive server && return 0
	touch /var/log/testfax-api.log
	chmod 0640 /var/log/testfax-api.log
	setsid setpriv --reuid=testfax --regid=testfax --init-groups env -i "$app/bin/testfax" server \
		</dev/null >>/var/log/testfax-api.log 2>&1 &
	echo "$!" >"$RUN/server.pid"
	echo "install.sh: started the API server (log: /var/log/testfax-api.log)"
}

stop_all() {
	if [ "$systemd" = yes ]; then
		systemctl stop testfax-api
		return 0
	fi
	for name in server $(receiving_ttys | sed 's/^/faxgetty-/') hfaxd faxq \
		$(for tty in $soft_modems; do echo "iaxmodem-$tty"; done) cron syslogd; do
		[ -f "$RUN/$name.pid" ] || continue
		pid=$(cat "$RUN/$name.pid")
		rm -f "$RUN/$name.pid"
		kill "$pid" 2>/dev/null || continue
		tries=0
		while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 50 ]; do
			tries=$((tries + 1))
			sleep 0.1
		done
		echo "install.sh: stopped $name"
	done
	if [ -f "$RUN/postfix.started" ]; then
		rm -f "$RUN/postfix.started"
		! postfix status >/dev/null 2>&1 || postfix stop >/dev/null 2>&1
		echo "install.sh: stopped postfix"
	fi
}

status_all() {
	if [ "$systemd" = yes ]; then
		systemctl is-active --quiet testfax-api postfix
		return $?
	fi
	postfix status >/dev/null 2>&1 && alive server && return 0
	return 3
}
