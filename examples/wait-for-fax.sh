#!/bin/sh
# Waits until a test fax shows up in the testfax API, then prints it.
#
# The reference client of "Waiting for a test fax" in docs/API.md, in POSIX sh.
# Needs curl and jq (1.6 or later); nothing else beyond common tools (mktemp, dd,
# sed, tr, sleep). Start it, then send the fax: it notes the time before you
# send, asks the list with that same `since`, `limit=100`, `wait=30` and the
# last answer's ETag as If-None-Match, so the server answers as soon as the
# list changes, waits out a 429 as Retry-After says, and prints the oldest
# matching fax as one line of JSON. Against a server that answers at once with
# nothing new (one older than `wait`), it asks every 15 seconds.
#
#   sh wait-for-fax.sh --base-url https://api.example.com --from +15551234567
#   sh wait-for-fax.sh --base-url https://api.example.com --pages 2
#
# Options: --base-url URL (required), --from SENDER (the full sender, never the
# masked form; "Unknown" for a fax without sender ID), --pages N, --since T
# (ISO 8601 with offset; default: now), --timeout SECONDS (600),
# --interval SECONDS (15), --help.
#
# Exit codes, as `fax wait`: 0 found (the fax on standard output), 1 timed
# out, 2 bad arguments or the service refused the request (4xx), 3 the service
# could not be reached or kept failing until the time limit, 4 rate limited
# (the last answer was a 429 and none before it brought the list).

USER_AGENT='testfax-wait-example/1.0 (sh)'

log() { printf 'wait-for-fax: %s\n' "$*" >&2; }
usage() { log "$1"; log "run with --help for the options and exit codes"; exit 2; }
# This file's opening comment, without its marks.
help() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0; }
plural() { if [ "$1" -eq 1 ]; then printf '%s %s' "$1" "$2"; else printf '%s %ss' "$1" "$2"; fi; }

for tool in curl jq; do
	command -v "$tool" >/dev/null 2>&1 || { log "$tool is needed but not installed"; exit 2; }
done

base_url='' from='' pages='' since='' timeout=600 interval=15
while [ $# -gt 0 ]; do
	[ "$1" != --help ] || help
	[ $# -ge 2 ] || usage "$1 needs a value"
	case $1 in
	--base-url) base_url=$2 ;;
	--from) from=$2 ;;
	--pages) pages=$2 ;;
	--since) since=$2 ;;
	--timeout) timeout=$2 ;;
	--interval) interval=$2 ;;
	*) usage "unknown option $1" ;;
	esac
	shift 2
done
case $base_url in http://* | https://*) ;; *) usage "--base-url must be an http:// or https:// address" ;; esac
case $pages in '' | *[!0-9]* | 0) [ -z "$pages" ] || usage "--pages must be a whole number of at least 1" ;; esac
for value in "$timeout" "$interval"; do
	awk -v v="$value" 'BEGIN { exit !(v ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)$/ && v + 0 > 0) }' ||
		usage "--timeout and --interval must be numbers of seconds above 0"
done

# Seconds to the time limit (jq tells the time to the millisecond; awk, which
# starts far quicker, does the arithmetic).
seconds_left() { jq -n --argjson deadline "$deadline" '$deadline - now'; }
# Strict POSIX sleep takes whole seconds; GNU, busybox and BSD sleep take
# fractions, which the last poll needs to fall on the time limit itself.
if sleep 0.01 2>/dev/null; then exact_sleep=true; else exact_sleep=false; fi
# The time limit, and the default since: the second before now (the API
# compares whole seconds, so a fax received in this very second still counts).
read -r deadline second_before <<EOF_TIMES
$(jq -nr --argjson timeout "$timeout" '"\(now + $timeout) \(now - 1 | strftime("%Y-%m-%dT%H:%M:%SZ"))"')
EOF_TIMES
[ -n "$since" ] || since=$second_before

work=$(mktemp -d) || exit 3
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The query, the same on every poll; --data-urlencode sends "+" as %2B, as the API asks.
set -- --data-urlencode "since=$since" --data-urlencode 'limit=100'
[ -z "$from" ] || set -- "$@" --data-urlencode "from=$from"

# The value of header $1 (in lower case) in the last answer, empty when it has none.
header() {
	tr -d '\r' <"$work/headers" |
		awk -v name="$1" 'tolower(substr($0, 1, index($0, ":") - 1)) == name { sub(/^[^:]*: */, ""); v = $0 } END { print v }'
}

# One GET of the list: $1 the wait (0: none), $2 the ETag to send (may be
# empty), $3 the seconds left, then the query; prints the status and the
# seconds it took. Held at most the wait, then answered within the time left
# (at least 5 s, at most 30 s): a hanging service overruns the limit by 5 s.
poll() {
	poll_wait=$1 poll_etag=$2
	poll_time=$(awk -v wait="$1" -v left="$3" 'BEGIN { t = (left < 5) ? 5 : left; if (t > 30) t = 30; printf("%.3f", wait + t) }')
	shift 3
	[ "$poll_wait" -eq 0 ] || set -- "$@" --data-urlencode "wait=$poll_wait"
	[ -z "$poll_etag" ] || set -- "$@" -H "If-None-Match: $poll_etag"
	curl -sS -G --max-time "$poll_time" -A "$USER_AGENT" -H 'Accept: application/json' \
		-D "$work/headers" -o "$work/body" -w '%{http_code} %{time_total}' "$@" "${base_url%/}/api/faxes" 2>"$work/error"
}

log "waiting up to $timeout s for a fax received after $since: send it now"
polls=0 failure='' etag='' listed=false
while :; do
	polls=$((polls + 1))
	delay=$interval
	left=$(seconds_left)
	# Never held past the time limit (at most the API's 30 s); the poll on it asks without wait.
	wait=$(awk -v left="$left" 'BEGIN { w = (left > 30) ? 30 : int(left); if (w < 0) w = 0; printf("%d", w) }')
	sent_etag=$etag
	answer=$(poll "$wait" "$sent_etag" "$left" "$@")
	status=${answer% *}
	# Held by the server (it answers up to a tenth early): the next poll may go at once.
	held=$(awk -v took="${answer#* }" -v wait="$wait" 'BEGIN { held = (wait > 0 && took >= wait * 0.85); printf("%s", held ? "true" : "false") }')
	case $status in
	200)
		# Newest first: the last matching element is the oldest fax after `since`.
		if fax=$(jq -ce --argjson pages "${pages:-null}" \
			'if type == "array" then [.[] | select($pages == null or .page_count == $pages)] | last else error end' \
			"$work/body" 2>/dev/null); then
			printf '%s\n' "$fax"
			log "found $(printf '%s' "$fax" | jq -r .slug) after $(plural "$polls" poll)"
			exit 0
		elif jq -e 'type == "array"' "$work/body" >/dev/null 2>&1; then
			failure='' listed=true
			etag=$(header etag)
			log "poll $polls: no fax yet"
			# A held answer, or a list not seen before: ask again at once.
			if [ "$held" = true ] || { [ -n "$etag" ] && [ "$etag" != "$sent_etag" ]; }; then delay=0; fi
		else
			failure="kept failing: HTTP 200 with something that is not a list of faxes"
			log "poll $polls: the answer is not a list of faxes, trying again"
		fi
		;;
	304)
		failure='' listed=true
		log "poll $polls: no fax yet"
		[ "$held" != true ] || delay=0
		;;
	429)
		failure=''
		delay=$(header retry-after | sed -n 's/^\([0-9][0-9]*\)$/\1/p')
		[ -n "$delay" ] && [ "$delay" -ge 1 ] || delay=$interval
		;;
	4??)
		message=$(jq -r '.message? // empty' "$work/body" 2>/dev/null)
		log "the service refused the request (HTTP $status): ${message:-$(dd bs=200 count=1 <"$work/body" 2>/dev/null)}"
		exit 2
		;;
	000)
		failure="could not be reached: $(cat "$work/error")"
		log "poll $polls: $failure"
		;;
	*)
		failure="kept failing: HTTP $status $(jq -r '.message? // empty' "$work/body" 2>/dev/null)"
		log "poll $polls: HTTP $status, trying again"
		;;
	esac

	left=$(seconds_left)
	if awk -v left="$left" 'BEGIN { exit !(left <= 0) }'; then
		if [ "$status" = 429 ] && [ "$listed" = false ]; then
			log "gave up after $(plural "$polls" poll): the service answered only 429 (rate limit used up), never the list"
			exit 4
		fi
		if [ -n "$failure" ]; then
			log "gave up after $(plural "$polls" poll): the service $failure"
			exit 3
		fi
		log "timed out: no matching fax after $(plural "$polls" poll)"
		exit 1
	fi
	if [ "$status" = 429 ]; then
		if awk -v left="$left" -v delay="$delay" 'BEGIN { exit !(delay <= left) }'; then
			log "poll $polls: HTTP 429, waiting $delay s as Retry-After says"
		else
			log "poll $polls: HTTP 429, waiting $(awk -v left="$left" 'BEGIN { printf("%.0f", left) }') s to the time limit (Retry-After says $delay s)"
		fi
	fi
	# The last poll falls on the time limit itself; a sleep that takes no
	# fraction gets whole seconds, rounded up (then it overshoots by under 1 s).
	sleep "$(awk -v left="$left" -v delay="$delay" -v exact="$exact_sleep" \
		'BEGIN { s = (delay < left) ? delay : left; if (exact != "true" && s > int(s)) s = int(s) + 1; printf((exact == "true") ? "%.3f" : "%d", s) }')"
done
