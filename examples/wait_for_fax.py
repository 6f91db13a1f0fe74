#!/usr/bin/env python3
"""Wait until a test fax shows up in the testfax API, then print it.

The reference client of "Waiting for a test fax" in docs/API.md. Python 3.8 or
later, standard library only. Start it, then send the fax: it notes the time
before you send, asks the list with that same `since`, `limit=100`, `wait=30`
and the last answer's ETag as If-None-Match, so the server answers as soon as
the list changes, waits out a 429 as `Retry-After` says, and prints the oldest
matching fax as one line of JSON. Against a server that answers at once with
nothing new (one older than `wait`), it asks every 15 seconds.

    python3 wait_for_fax.py --base-url https://api.example.com --from +15551234567
    python3 wait_for_fax.py --base-url https://api.example.com --pages 2

Match on --from (the full sender, never the masked form; "Unknown" for a fax
without sender ID) or on --pages (most phone faxes come without sender ID),
or both.

Exit codes, as `fax wait`:
  0  found: the fax is on standard output
  1  timed out: the service answered, but no matching fax came in time
  2  bad arguments, or the service refused the request (4xx) with its message
  3  the service could not be reached, or kept failing until the time limit
  4  rate limited: the last answer was a 429 and none before it brought the list
"""

import time

# The time limit counts from here, before the imports that take a while to load.
STARTED = time.monotonic()

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import urllib.error  # noqa: E402
import urllib.parse  # noqa: E402
import urllib.request  # noqa: E402
from datetime import datetime, timedelta, timezone  # noqa: E402

# Never the library default: the API refuses Python-urllib/* with a 403.
USER_AGENT = "testfax-wait-example/1.0 (Python)"
REQUEST_TIMEOUT_SECONDS = 30
# The poll on the time limit still gets this long to be answered.
LAST_REQUEST_GRACE_SECONDS = 5
# The longest `wait` the API takes.
MAX_WAIT_SECONDS = 30
# An answer that took this share of its `wait` was held by the server (which
# answers up to a tenth early): the next poll may go at once.
HELD_SHARE = 0.85

FOUND, TIMED_OUT, REFUSED, UNREACHABLE, RATE_LIMITED = 0, 1, 2, 3, 4


def log(message):
    print(f"wait_for_fax: {message}", file=sys.stderr, flush=True)


def plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line and a pointer to --help, not the usage block."""

    def error(self, message):
        log(message)
        log("run with --help for the options and exit codes")
        sys.exit(REFUSED)


def positive_number(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def whole_number(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def parse_arguments():
    parser = ArgumentParser(
        description="Wait until a test fax shows up in the testfax API, then print it.",
        epilog="Exit codes: 0 found, 1 timed out, 2 bad arguments or refused (4xx), 3 unreachable, 4 rate limited.",
    )
    parser.add_argument("--base-url", required=True, help="the API's address, e.g. https://api.example.com")
    parser.add_argument("--from", dest="sender", help='the sender as sent: number, station ID or email; "Unknown" for none')
    parser.add_argument("--pages", type=whole_number, help="only a fax of exactly this many pages")
    parser.add_argument("--since", help="only faxes received after this ISO 8601 time with offset (default: now)")
    parser.add_argument("--timeout", type=positive_number, default=600, help="give up after this many seconds (600)")
    parser.add_argument("--interval", type=positive_number, default=15, help="seconds between polls (15)")
    arguments = parser.parse_args()
    if not arguments.base_url.startswith(("http://", "https://")):
        parser.error("--base-url must be an http:// or https:// address")
    return arguments


def default_since():
    """The second before now, so a fax received in this very second still counts (the API compares whole seconds)."""
    now = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=1)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def list_url(base_url, since, sender):
    query = {"since": since, "limit": "100"}
    if sender is not None:
        query["from"] = sender
    # urlencode sends "+" as %2B, as the API asks.
    return f"{base_url.rstrip('/')}/api/faxes?{urllib.parse.urlencode(query)}"


def get(url, etag, wait, left):
    """(status, headers, body text) of a GET; raises OSError when there is no answer.

    Held at most `wait` seconds, then answered within the time `left`: a hanging
    service overruns the time limit by LAST_REQUEST_GRACE_SECONDS at most.
    """
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if etag is not None:
        headers["If-None-Match"] = etag
    request = urllib.request.Request(url, headers=headers)
    try:
        timeout = wait + min(REQUEST_TIMEOUT_SECONDS, max(left, LAST_REQUEST_GRACE_SECONDS))
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.headers, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode("utf-8", "replace")


def message_of(body):
    try:
        return json.loads(body).get("message") or body.strip()
    except (ValueError, AttributeError):
        return body.strip()


def retry_after(headers, fallback):
    text = (headers.get("Retry-After") or "").strip()
    return max(1, int(text)) if text.isdigit() else fallback


def faxes_of(body):
    """The list of faxes of a 200, or None when the body is something else (a proxy's page, say)."""
    try:
        faxes = json.loads(body)
    except ValueError:
        return None
    return faxes if isinstance(faxes, list) and all(isinstance(fax, dict) for fax in faxes) else None


def oldest_match(faxes, pages):
    """The list is newest first, so the last matching element is the oldest fax after `since`."""
    matching = [fax for fax in faxes if pages is None or fax.get("page_count") == pages]
    return matching[-1] if matching else None


def waiting_after_429(polls, retry, left):
    """The delay after a 429, and its log line: Retry-After, cut to the time limit."""
    if retry <= left:
        log(f"poll {polls}: HTTP 429, waiting {retry} s as Retry-After says")
        return retry
    log(f"poll {polls}: HTTP 429, waiting {left:.0f} s to the time limit (Retry-After says {retry} s)")
    return left


def give_up(polls, last_failure, rate_limited):
    """The exit code at the time limit, with its line."""
    if rate_limited:
        log(f"gave up after {plural(polls, 'poll')}: the service answered only 429 (rate limit used up), never the list")
        return RATE_LIMITED
    if last_failure is not None:
        log(f"gave up after {plural(polls, 'poll')}: the service {last_failure}")
        return UNREACHABLE
    log(f"timed out: no matching fax after {plural(polls, 'poll')}")
    return TIMED_OUT


def main():
    arguments = parse_arguments()
    since = arguments.since or default_since()
    url = list_url(arguments.base_url, since, arguments.sender)
    deadline = STARTED + arguments.timeout
    log(f"waiting up to {arguments.timeout:g} s for a fax received after {since}: send it now")

    polls = 0
    last_failure = None
    etag = None
    ever_listed = False
    while True:
        polls += 1
        delay = arguments.interval
        # Never held past the time limit; the poll on it asks without wait.
        wait = max(0, min(MAX_WAIT_SECONDS, int(deadline - time.monotonic())))
        sent_etag = etag
        sent_at = time.monotonic()
        try:
            status, headers, body = get(f"{url}&wait={wait}" if wait > 0 else url, sent_etag, wait, deadline - sent_at)
        except OSError as error:
            status, headers, body = None, {}, ""
            last_failure = f"could not be reached: {error}"
        held = wait > 0 and time.monotonic() - sent_at >= wait * HELD_SHARE
        faxes = faxes_of(body) if status == 200 else None
        if status == 200 and faxes is None:
            last_failure = "kept failing: HTTP 200 with something that is not a list of faxes"
            log(f"poll {polls}: the answer is not a list of faxes, trying again")
        elif status == 200:
            last_failure = None
            fax = oldest_match(faxes, arguments.pages)
            if fax is not None:
                print(json.dumps(fax, separators=(",", ":"), ensure_ascii=False), flush=True)
                log(f"found {fax['slug']} after {plural(polls, 'poll')}")
                return FOUND
            etag = headers.get("ETag")
            ever_listed = True
            log(f"poll {polls}: no fax yet")
            # A held answer, or a list not seen before: ask again at once.
            if held or (etag is not None and etag != sent_etag):
                delay = 0
        elif status == 304:
            last_failure = None
            ever_listed = True
            log(f"poll {polls}: no fax yet")
            if held:
                delay = 0
        elif status == 429:
            last_failure = None
            delay = retry_after(headers, arguments.interval)
        elif status is not None and 400 <= status < 500:
            log(f"the service refused the request (HTTP {status}): {message_of(body)}")
            log(f"  GET {url}")
            return REFUSED
        elif status is not None:
            last_failure = f"kept failing: HTTP {status} {message_of(body)}"
            log(f"poll {polls}: HTTP {status}, trying again")
        else:
            log(f"poll {polls}: {last_failure}")

        left = deadline - time.monotonic()
        if left <= 0:
            return give_up(polls, last_failure, status == 429 and not ever_listed)
        if status == 429:
            delay = waiting_after_429(polls, delay, left)
        # The last poll falls on the time limit itself.
        time.sleep(min(delay, left))


if __name__ == "__main__":
    sys.exit(main())
