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
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

# Never the library default: the API refuses Python-urllib/* with a 403.
USER_AGENT = "testfax-wait-example/1.0 (Python)"
REQUEST_TIMEOUT_SECONDS = 30
# The longest `wait` the API takes.
MAX_WAIT_SECONDS = 30
# An answer that took this share of its `wait` was held by the server (which
# answers up to a tenth early): the next poll may go at once.
HELD_SHARE = 0.85

FOUND, TIMED_OUT, REFUSED, UNREACHABLE = 0, 1, 2, 3


def log(message):
    print(f"wait_for_fax: {message}", file=sys.stderr, flush=True)


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
    parser = argparse.ArgumentParser(
        description="Wait until a test fax shows up in the testfax API, then print it.",
        epilog="Exit codes: 0 found, 1 timed out, 2 bad arguments or refused (4xx), 3 unreachable.",
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


def get(url, etag, wait):
    """(status, headers, body text) of a GET; raises OSError when there is no answer."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if etag is not None:
        headers["If-None-Match"] = etag
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=wait + REQUEST_TIMEOUT_SECONDS) as answer:
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


def main():
    arguments = parse_arguments()
    since = arguments.since or default_since()
    url = list_url(arguments.base_url, since, arguments.sender)
    deadline = time.monotonic() + arguments.timeout
    log(f"waiting up to {arguments.timeout:g} s for a fax received after {since}: send it now")

    polls = 0
    last_failure = None
    etag = None
    while True:
        polls += 1
        delay = arguments.interval
        # Never held past the time limit; the poll on it asks without wait.
        wait = max(0, min(MAX_WAIT_SECONDS, int(deadline - time.monotonic())))
        sent_etag = etag
        sent_at = time.monotonic()
        try:
            status, headers, body = get(f"{url}&wait={wait}" if wait > 0 else url, sent_etag, wait)
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
                log(f"found {fax['slug']} after {polls} poll{'s' if polls != 1 else ''}")
                return FOUND
            etag = headers.get("ETag")
            log(f"poll {polls}: no fax yet")
            # A held answer, or a list not seen before: ask again at once.
            if held or (etag is not None and etag != sent_etag):
                delay = 0
        elif status == 304:
            last_failure = None
            log(f"poll {polls}: no fax yet")
            if held:
                delay = 0
        elif status == 429:
            last_failure = None
            delay = retry_after(headers, arguments.interval)
            log(f"poll {polls}: HTTP 429, waiting {delay} s as Retry-After says")
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
            if last_failure is not None:
                log(f"gave up after {polls} polls: the service {last_failure}")
                return UNREACHABLE
            log(f"timed out: no matching fax after {polls} polls")
            return TIMED_OUT
        # The last poll falls on the time limit itself.
        time.sleep(min(delay, left))


if __name__ == "__main__":
    sys.exit(main())
