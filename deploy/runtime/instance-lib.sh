# shellcheck shell=sh disable=SC2154,SC2034 # its variables are its caller's (api_unit_changed too)
# The steps that make a host run an API instance: the user testfax, the
# settings file, the data folders and the unit testfax-api.service. Sourced by
# deploy/runtime/install-instance.sh (an API host) and by
# deploy/receivers/install.sh (a receivers host, whose server is the same
# instance), each with app, SETTINGS, STATE, systemd, say and die set. Each
# step checks before it changes, says what it changed, and changes nothing
# the second time.

# put_file DEST MODE OWNER: DEST gets standard input's text. A DEST this
# script wrote before (its checksum is in $STATE) or that differs only in
# comments is replaced; any other DEST that differs stops the run.
put_file() {
	dest=$1
	tmp=$(mktemp)
	cat >"$tmp"
	record=$STATE/$(printf '%s' "$dest" | tr / _)
	if [ -e "$dest" ] && ! cmp -s "$tmp" "$dest"; then
		ours=no
		[ -f "$record" ] && [ "$(sha256sum <"$dest")" = "$(cat "$record")" ] && ours=yes
		[ "$(grep -v '^#' "$dest")" = "$(grep -v '^#' "$tmp")" ] && ours=yes
		if [ "$ours" = no ]; then
			rm -f "$tmp"
			die "$dest was changed by someone else: not overwriting it (move it away, or merge it into ${0##*/}'s version)"
		fi
	fi
	if ! cmp -s "$tmp" "$dest" 2>/dev/null; then
		install -m "$2" -o "${3%:*}" -g "${3#*:}" "$tmp" "$dest"
		say "wrote $dest"
	fi
	rm -f "$tmp"
	install -d -m 0700 "$STATE"
	sha256sum <"$dest" >"$record"
	set_mode "$dest" "$2" "$3"
}

# set_mode PATH MODE OWNER: as given, said when it was not.
set_mode() {
	if [ "$(stat -c '%a %U:%G' "$1")" != "$(printf '%o' "0$2") $3" ]; then
		chown "$3" "$1"
		chmod "$2" "$1"
		say "$1 made $3 mode $2"
	fi
}

check_app() {
	[ -x "$app/bin/testfax" ] || die "$app/bin/testfax is missing: --app names a checkout of testfax-api"
	[ -x "$app/node_modules/.bin/bun" ] || die "$app has no node_modules/.bin/bun: run npm ci there first"
	check_pipeline
}

# Before anything starts: a host that cannot process documents would list
# every fax as not processable (an npm ci that dropped sharp's native package).
check_pipeline() {
	out=$("$app/node_modules/.bin/bun" "$app/bin/fax.ts" check 2>&1) ||
		die "$(printf '%s' "$out" | head -n 1); nothing started (run npm ci in $app again: docs/operations/instance.md, \"Node on Debian 12\")"
}

make_service_user() {
	if ! id -u testfax >/dev/null 2>&1; then
		useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin testfax
		say "made the user testfax"
	fi
	# Earlier set-ups shared the group uucp; it lets the API write HylaFAX's spool.
	if id -nG testfax | tr ' ' '\n' | grep -qx uucp; then
		gpasswd -d testfax uucp >/dev/null
		say "took testfax out of the group uucp"
	fi
}

# install_settings receivers|instance: the settings file from the shipped
# one, when it is missing; on a host without receivers (instance) their
# queues are left out, commented, as nothing there would read them.
install_settings() {
	install -d -m 0755 /etc/testfax-api
	if [ ! -e "$SETTINGS" ]; then
		tmp=$(mktemp)
		if [ "$1" = receivers ]; then
			cat "$app/deploy/receivers/testfax.env" >"$tmp"
		else
			sed 's/^RECEIVER_/#RECEIVER_/' "$app/deploy/receivers/testfax.env" >"$tmp"
		fi
		install -m 0640 -o root -g testfax "$tmp" "$SETTINGS"
		rm -f "$tmp"
		say "wrote $SETTINGS (edit it: docs/operations/$1.md)"
	fi
	# Secrets (a Redis password) are for the service's user alone.
	set_mode "$SETTINGS" 0640 root:testfax
}

# shellcheck source=/dev/null # the operator's settings file
setting() { (set -a && . "$SETTINGS" && eval "printf '%s' \"\${$1:-}\""); }

make_data_dirs() {
	for dir in "$(dirname -- "$(setting DATABASE_PATH)")" "$(setting STORAGE_DIR)"; do
		if [ "$dir" = "" ] || [ "$dir" = . ]; then die "$SETTINGS sets no DATABASE_PATH or STORAGE_DIR"; fi
		if [ ! -d "$dir" ]; then
			install -d -m 2770 -o testfax -g testfax "$dir"
			say "made $dir"
		fi
		set_mode "$dir" 2770 testfax:testfax
		# Files of a set-up that shared them with uucp: the service's only.
		if [ -n "$(find "$dir" ! -group testfax -print -quit)" ]; then
			find "$dir" ! -group testfax -exec chgrp -h testfax {} +
			say "gave the group testfax every file of $dir"
		fi
	done
}

# With systemd, the unit testfax-api.service: deploy/runtime/testfax-api.service
# of the folder this step was sourced from, with $app in place of
# /opt/testfax-api. api_unit_changed says whether it was written now.
install_api_unit() {
	api_unit_changed=no
	[ "$systemd" = yes ] || return 0
	before=$changed
	unit=$(mktemp)
	sed "s|/opt/testfax-api|$app|g" "$runtime/testfax-api.service" >"$unit"
	# Not through a pipe: put_file's count of changes stays in this shell.
	put_file /etc/systemd/system/testfax-api.service 0644 root:root <"$unit"
	rm -f "$unit"
	[ "$changed" -eq "$before" ] || api_unit_changed=yes
}
