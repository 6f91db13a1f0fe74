/** The description's introduction: what every endpoint shares, and how to wait for a test. Markdown. */
export const OVERVIEW = `People who set up fax machines, scan-to-email devices and Internet-fax services send a test fax
to the test site, then ask this API until their test shows up, and look at the PDF and the image of the
first page it links to.

The guide for API users, with the masking and matching rules, every error message and examples:
[docs/API.md](/docs/API.md) (also in the project's repository).

- A test is a fax received by phone (\`source: phone\`), or a scan-to-email or Internet-fax test received
  by email (\`source: email\`). It appears only once its processing is done: usually within 5 seconds
  of the end of the call or of the mail's arrival, within minutes when its first hand-over fails.
- Every test is public for 30 days, then removed (410); it can also be removed on request.
- No account, no token, no API key. The service cannot send, remove or hide a fax, and sends no
  webhooks or notifications: a client asks again until its test appears.
- JSON in UTF-8 (\`application/json; charset=utf-8\`), also for errors and without an \`Accept\`
  header. Times are ISO 8601 in UTC with \`Z\`, whole seconds.
- \`GET\` and \`HEAD\` (the same status and headers, no body). Any other method on an endpoint answers
  405 \`{"message": "The method is not allowed. Use GET or HEAD."}\` with \`Allow: GET, HEAD\`.
  Any other path answers 404 \`{"message": ""}\`.
- Every answer carries \`Cache-Control: no-store, private\` and \`Access-Control-Allow-Origin: *\`:
  browsers may call the API from any origin (no credentials), and may read the rate-limit headers and
  \`Retry-After\`.
- Every 200 of an endpoint carries an \`ETag\` derived from its content. Send it back as
  \`If-None-Match\`: while the answer is the same, it is a 304 with no body (counted by the rate limit
  like every answer). A new fax, a removal or an expiry changes it; every instance gives the same
  answer the same \`ETag\`.
- Answers of 1 KB or more are compressed with \`br\` or \`gzip\` when \`Accept-Encoding\` accepts
  it (q-values respected, \`br\` preferred on a tie), with \`Vary: Accept-Encoding\`; decoded, the
  body is byte for byte the uncompressed one.
- Set a \`User-Agent\` of your own. Requests with the default one of Python's \`urllib\`
  (\`Python-urllib/…\`) are refused with a 403 and a short text.
- The paths carry no version; this description is version 1.1.0 (docs/API.md lists the changes since 1.0.0).

## Waiting for a test fax

Most clients send a test fax by other means and then wait for it here:

1. Note the UTC time just before sending the test and send it as \`since\` on every call. Do not
   advance it to the newest \`received_at\` seen: a long fax can appear after a newer short one.
2. Ask \`GET /api/faxes?since=<that time>&limit=100&wait=30\` with the last answer's \`ETag\` as
   \`If-None-Match\`: the server holds the request until the list changes, or answers as without
   \`wait\` after 30 seconds. Ask again when the answer comes (every 15 seconds against a server that
   answers at once), and stop after a time limit (10 minutes is a good one).
3. The list is newest first, so the last matching element is the oldest fax after \`since\`: yours.
4. On 429, wait the number of seconds in \`Retry-After\`, then ask again.
5. Match on \`from\` (the full sender, never the masked form). Most phone faxes come with no sender ID,
   so match on \`page_count\` too.
6. Set a \`User-Agent\` of your own.

Reference clients that do exactly this: \`examples/wait_for_fax.py\` (Python 3, standard library only),
\`examples/wait-for-fax.sh\` (POSIX shell with curl and jq) and the operator command \`fax wait\`, in the
project's repository.

## Rate limit

60 requests a minute per IPv4 address, or per IPv6 /64 block, for both endpoints together. Every
answer of an endpoint counts, 404, 410, 422 and 405 included; other paths, CORS preflights and the 403
do not. The window opens with a client's first request and lasts a minute. Every counted answer
carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\`, and \`RateLimit-Policy\` and \`RateLimit\` as
the IETF draft \`draft-ietf-httpapi-ratelimit-headers-11\` defines them. Past the limit the answer is
429 \`{"message": "Too Many Attempts."}\` with \`Retry-After\` (seconds) and \`X-RateLimit-Reset\`
(Unix seconds).

## Errors

| Status | When | Body |
| - | - | - |
| 404 | No fax has this ID (yet), or the path is no endpoint | \`{"message": ""}\` |
| 410 | The fax was removed: after 30 days, or on request | \`{"message": ""}\` |
| 422 | A query parameter is not valid | \`message\` (the first error) and \`errors\` (per parameter, a list of messages) |
| 429 | The rate limit is used up | \`{"message": "Too Many Attempts."}\` |
| 403 | The \`User-Agent\` is the default one of Python's \`urllib\` | a short text, not JSON |
| 503 | Storage is passing through a failure | \`{"message": "Service Unavailable."}\`, \`Retry-After: 5\` |
| 500 | Anything else went wrong | \`{"message": "Server Error."}\` |
`;
