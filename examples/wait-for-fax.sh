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
# --interval SECONDS (15; strict POSIX sleep takes whole seconds only).
#
# Exit codes, as `fax wait`: 0 found (the fax on standard output), 1 timed
# out, 2 bad arguments or the service refused the request (4xx), 3 the service
# could not be reached or kept failing until the time limit.

USER_AGENT='testfax-wait-example/1.0 (sh)'

log() { printf 'wait-for-fax: %s\n' "$*" >&2; }
usage() { log "$1"; log "usage: wait-for-fax.sh --base-url URL [--from SENDER] [--pages N] [--since T] [--timeout S] [--interval S]"; exit 2; }

for tool in curl jq; do
	command -v "$tool" >/dev/null 2>&1 || { log "$tool is needed but not installed"; exit 2; }
done

base_url='' from='' pages='' since='' timeout=600 interval=15
while [ $# -gt 0 ]; do
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
	jq -en --arg v "$value" '$v | test("^([0-9]+\\.?[0-9]*|\\.[0-9]+)$") and tonumber > 0' >/dev/null ||
		usage "--timeout and --interval must be numbers of seconds above 0"
done

now() { jq -n 'now'; }
# The second before now: the API compares whole seconds, so a fax received in
# this very second still counts.
[ -n "$since" ] || since=$(jq -nr 'now - 1 | strftime("%Y-%m-%dT%H:%M:%SZ")')
deadline=$(jq -n --argjson start "$(now)" --argjson timeout "$timeout" '$start + $timeout')

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
# empty), then the query; prints the status and the seconds it took.
poll() {
	poll_wait=$1 poll_etag=$2
	shift 2
	[ "$poll_wait" -eq 0 ] || set -- "$@" --data-urlencode "wait=$poll_wait"
	[ -z "$poll_etag" ] || set -- "$@" -H "If-None-Match: $poll_etag"
	curl -sS -G --max-time $((poll_wait + 30)) -A "$USER_AGENT" -H 'Accept: application/json' \
		-D "$work/headers" -o "$work/body" -w '%{http_code} %{time_total}' "$@" "${base_url%/}/api/faxes" 2>"$work/error"
}

log "waiting up to $timeout s for a fax received after $since: send it now"
polls=0 failure='' etag=''
while :; do
	polls=$((polls + 1))
	delay=$interval
	# Never held past the time limit (at most the API's 30 s); the poll on it asks without wait.
	wait=$(jq -n --argjson deadline "$deadline" --argjson now "$(now)" '[$deadline - $now, 30] | min | floor | [., 0] | max')
	sent_etag=$etag
	answer=$(poll "$wait" "$sent_etag" "$@")
	status=${answer% *}
	# Held by the server (it answers up to a tenth early): the next poll may go at once.
	held=$(jq -n --argjson took "${answer#* }" --argjson wait "$wait" '$wait > 0 and $took >= $wait * 0.85')
	message=$(jq -r '.message? // empty' "$work/body" 2>/dev/null)
	case $status in
	200)
		# Newest first: the last matching element is the oldest fax after `since`.
		if fax=$(jq -ce --argjson pages "${pages:-null}" \
			'if type == "array" then [.[] | select($pages == null or .page_count == $pages)] | last else error end' \
			"$work/body" 2>/dev/null); then
			printf '%s\n' "$fax"
			log "found $(printf '%s' "$fax" | jq -r .slug) after $polls polls"
			exit 0
		elif jq -e 'type == "array"' "$work/body" >/dev/null 2>&1; then
			failure=''
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
		failure=''
		log "poll $polls: no fax yet"
		[ "$held" != true ] || delay=0
		;;
	429)
		failure=''
		delay=$(header retry-after | sed -n 's/^\([0-9][0-9]*\)$/\1/p')
		[ -n "$delay" ] && [ "$delay" -ge 1 ] || delay=$interval
		log "poll $polls: HTTP 429, waiting $delay s as Retry-After says"
		;;
	4??)
		log "the service refused the request (HTTP $status): ${message:-$(dd bs=200 count=1 <"$work/body" 2>/dev/null)}"
		exit 2
		;;
	000)
		failure="could not be reached: $(cat "$work/error")"
		log "poll $polls: $failure"
		;;
	*)
		failure="kept failing: HTTP $status $message"
		log "poll $polls: HTTP $status, trying again"
		;;
	esac

	left=$(jq -n --argjson deadline "$deadline" --argjson now "$(now)" '$deadline - $now')
	if jq -en --argjson left "$left" '$left <= 0' >/dev/null; then
		if [ -n "$failure" ]; then
			log "gave up after $polls polls: the service $failure"
			exit 3
		fi
		log "timed out: no matching fax after $polls polls"
		exit 1
	fi
	# The last poll falls on the time limit itself; whole-second delays stay
	# whole, for a sleep that takes no fraction.
	sleep "$(jq -n --argjson left "$left" --argjson delay "$delay" \
		'[$delay, $left] | min | if ($delay | floor) == $delay then ceil else . end')"
done
