# shellcheck shell=sh disable=SC2154 # its variables are install.sh's
# install.sh --start, --stop, --status (sourced by it). With systemd, the
# units. Without, the daemons themselves: each one --start started has its
# process id in $RUN, and --stop ends those and nothing else, so a daemon
# that ran before (an operator's cron, say) keeps running.

# shellcheck disable=SC2086 # the lists, one word per modem
receiving_ttys() { printf '%s\n' $modems $soft_modems | sort -u; }

alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

# own PGREP_ARGS...: pgrep in this host's process namespace only; a
# container's HylaFAX shows in the host's process list, and is not ours.
own() { pgrep --ns $$ --nslist pid "$@"; }

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
	until pid=$(own -n -x "$2"); do
		tries=$((tries + 1))
		[ "$tries" -lt 50 ] || die "$2 did not start (see /var/log/syslog)"
		sleep 0.1
	done
	echo "$pid" >"$RUN/$1.pid"
	echo "install.sh: started $1"
}

start_all() {
	check_pipeline
	if [ "$systemd" = yes ]; then
		units="postfix cron testfax-api testfax-call-watch testfax-mail-watch"
		[ -z "$soft_modems" ] || units="$units iaxmodem"
		for tty in $(receiving_ttys); do units="$units faxgetty@$tty"; done
		# shellcheck disable=SC2086 # one word per unit
		systemctl enable --now --quiet $units hylafax faxq hfaxd
		return 0
	fi
	install -d -m 0700 "$RUN"
	start_syslog
	[ -n "$(cron_pid)" ] || { cron && adopt cron cron; }
	if ! postfix status >/dev/null 2>&1; then
		out=$(postfix start 2>&1) || die "postfix start failed: $out"
		touch "$RUN/postfix.started"
		echo "install.sh: started postfix"
	fi
	for tty in $soft_modems; do alive "iaxmodem-$tty" || spawn "iaxmodem-$tty" iaxmodem "$tty"; done
	own -x faxq >/dev/null || { env -i /usr/sbin/faxq && adopt faxq faxq; }
	# Only sendfax on this host uses HylaFAX's client protocol: loopback only.
	own -x hfaxd >/dev/null || { env -i /usr/sbin/hfaxd -l 127.0.0.1 -i 4559 && adopt hfaxd hfaxd; }
	for tty in $(receiving_ttys); do
		alive "faxgetty-$tty" || spawn "faxgetty-$tty" env -i /usr/sbin/faxgetty "$tty"
	done
	start_call_watch
	start_mail_watch
	start_server
}

# As uucp, HylaFAX's user: it reads the session logs and hands over as faxrcvd
# does. One running from another folder (the release before an upgrade) is
# replaced by one running from this one.
start_call_watch() {
	if alive call-watch; then
		[ "$(cat "$RUN/call-watch.app" 2>/dev/null)" != "$app" ] || return 0
		stop call-watch
	fi
	spawn call-watch setpriv --reuid=uucp --regid=uucp --init-groups env -i "$HERE/hylafax/call-watch"
	printf '%s\n' "$app" >"$RUN/call-watch.app"
}

# As testfax-maillog, which may read Postfix's log (group adm); replaced as call-watch is.
start_mail_watch() {
	if alive mail-watch; then
		[ "$(cat "$RUN/mail-watch.app" 2>/dev/null)" != "$app" ] || return 0
		stop mail-watch
	fi
	spawn mail-watch setpriv --reuid=testfax-maillog --regid=testfax-maillog --init-groups \
		env -i "$HERE/postfix/mail-watch"
	printf '%s\n' "$app" >"$RUN/mail-watch.app"
}

# The logs hold raw sender addresses, which the API masks: root and adm only.
start_syslog() {
	for log in /var/log/syslog /var/log/mail.log; do
		[ -e "$log" ] || install -m 0640 -o root -g adm /dev/null "$log"
		set_mode "$log" 0640 root:adm
	done
	if ! { alive syslogd || own -f syslogd >/dev/null; }; then
		(umask 027 && spawn syslogd busybox syslogd -n -O /var/log/syslog)
		sleep 0.2
	fi
}

# A server running from another folder (the release before an upgrade) is
# replaced by one running from this one.
start_server() {
	if alive server; then
		[ "$(cat "$RUN/server.app" 2>/dev/null)" != "$app" ] || return 0
		stop server
	fi
	touch /var/log/testfax-api.log
	chmod 0640 /var/log/testfax-api.log
	setsid setpriv --reuid=testfax --regid=testfax --init-groups env -i "$app/bin/testfax" server \
		</dev/null >>/var/log/testfax-api.log 2>&1 &
	echo "$!" >"$RUN/server.pid"
	printf '%s\n' "$app" >"$RUN/server.app"
	echo "install.sh: started the API server (log: /var/log/testfax-api.log)"
}

# stop NAME: ends the daemon --start started under NAME, if it runs.
stop() {
	[ -f "$RUN/$1.pid" ] || return 0
	pid=$(cat "$RUN/$1.pid")
	rm -f "$RUN/$1.pid"
	kill "$pid" 2>/dev/null || return 0
	tries=0
	while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 50 ]; do
		tries=$((tries + 1))
		sleep 0.1
	done
	echo "install.sh: stopped $1"
}

restart_server() {
	if [ "$systemd" = yes ]; then
		systemctl restart testfax-api
		echo "install.sh: restarted the API server"
		return 0
	fi
	install -d -m 0700 "$RUN"
	stop server
	start_server
}

# The syslog daemon keeps running: a hand-over run by hand later still logs.
stop_all() {
	if [ "$systemd" = yes ]; then
		systemctl stop testfax-api
		return 0
	fi
	for name in server call-watch mail-watch $(receiving_ttys | sed 's/^/faxgetty-/') hfaxd faxq \
		$(for tty in $soft_modems; do echo "iaxmodem-$tty"; done) cron; do
		stop "$name"
	done
	if [ -f "$RUN/postfix.started" ]; then
		rm -f "$RUN/postfix.started"
		! postfix status >/dev/null 2>&1 || postfix stop >/dev/null 2>&1
		echo "install.sh: stopped postfix"
	fi
}

# report NAME PID: one line of --status; false when PID is empty.
report() {
	if [ -n "$2" ]; then
		echo "install.sh: $1 running (pid $2)"
	else
		echo "install.sh: $1 NOT running"
		return 1
	fi
}

# The cron daemon, from the pid file it keeps: the cron processes that run
# its jobs carry its name too, and one still running (a sweep) made a stopped
# daemon look alive, so --start did not start it again.
cron_pid() {
	pid=$(cat /run/crond.pid 2>/dev/null) || return 0
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != cron ] || echo "$pid"
}

# pid_of NAME PGREP_ARGS...: the daemon --start started, else one of this host's.
pid_of() {
	name=$1
	shift
	if alive "$name"; then cat "$RUN/$name.pid"; else own -o "$@" || true; fi
}

# One line per daemon the receivers need; 3 when any one is down.
status_all() {
	if [ "$systemd" = yes ]; then
		units="postfix cron faxq testfax-api testfax-call-watch testfax-mail-watch"
		[ -z "$soft_modems" ] || units="$units iaxmodem"
		for tty in $(receiving_ttys); do units="$units faxgetty@$tty"; done
		down=0
		for unit in $units; do
			state=$(systemctl is-active "$unit" 2>/dev/null) || down=3
			echo "install.sh: $unit $state"
		done
		return "$down"
	fi
	down=0
	postfix_pid=$(tr -d ' ' 2>/dev/null </var/spool/postfix/pid/master.pid || true)
	postfix status >/dev/null 2>&1 || postfix_pid=""
	report postfix "$postfix_pid" || down=3
	report cron "$(cron_pid)" || down=3
	report faxq "$(pid_of faxq -x faxq)" || down=3
	for tty in $soft_modems; do report "iaxmodem $tty" "$(pid_of "iaxmodem-$tty" -x -f "iaxmodem $tty")" || down=3; done
	for tty in $(receiving_ttys); do
		report "faxgetty $tty" "$(pid_of "faxgetty-$tty" -x -f "/usr/sbin/faxgetty $tty")" || down=3
	done
	report call-watch "$(pid_of call-watch -u uucp -x -f "/bin/sh $HERE/hylafax/call-watch")" || down=3
	report mail-watch "$(pid_of mail-watch -u testfax-maillog -x -f "/bin/sh $HERE/postfix/mail-watch")" || down=3
	report "the API server" "$(pid_of server -x -f "$app/node_modules/.bin/bun bin/server.ts")" || down=3
	return "$down"
}
