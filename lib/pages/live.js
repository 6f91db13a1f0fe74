// The live list of /faxtest (lib/pages/live-page.ts). The page reads in full
// without this script; with it, the list follows the public API: one request
// at a time, held by the server (`wait`) until the list differs from the one
// shown (`If-None-Match` with its ETag), so a new test shows the moment it is
// listed. Budget, against the API's 60 requests a minute per network:
//   - nothing new: one request every 27–30 s (the server answers a held
//     request up to a tenth early): about 2 a minute, at most 134 an hour;
//   - requests start at least MIN_GAP_MS apart, whatever comes: at most 20 a
//     minute even while tests keep arriving; only a filter the visitor submits
//     cancels the held request and asks at once (their own action, one request);
//   - a 429 or 503 waits its Retry-After; a server that cannot be reached or
//     answers an error is asked again after 2, 4, 8 … 60 s;
//   - a hidden tab makes no request at all: its held request is cancelled and
//     the next one starts when the tab is shown again.
// The calls being received now come the same way, one request at a time
// (/faxtest/calls, counted like the API's): a stream of server-sent events
// held CALLS_WAIT_SECONDS, carrying each change as it happens, so about 2.4
// more requests a minute, however fast a call moves.

const LIMIT = 100;
const WAIT_SECONDS = 30;
const MIN_GAP_MS = 3000;
const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 60000;
const SOURCES = { phone: "Fax by phone", email: "Email" };

const list = document.getElementById("faxes");
const empty = document.getElementById("empty");
const status = document.getElementById("status");
const form = document.getElementById("filter");
const input = document.getElementById("from");

let from = new URLSearchParams(location.search).get("from");
if (from !== null && from.trim() === "") from = null;
// The sender stays out of the address bar, and so out of the history.
if (location.search !== "") history.replaceState(null, "", location.pathname);
let etag = list.dataset.etag || null;
let controller = null;
let timer = null;
// When the last request started, by the page's monotonic clock: a step of the
// wall clock (Date.now) could bring two requests closer than MIN_GAP_MS.
let lastStart = Number.NEGATIVE_INFINITY;
let failures = 0;

function localTime(iso) {
	return new Date(iso).toLocaleString(undefined, {
		year: "numeric",
		month: "short",
		day: "numeric",
		hour: "2-digit",
		minute: "2-digit",
		second: "2-digit",
		hourCycle: "h23",
		timeZoneName: "short",
	});
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

// "2 minutes ago" beside the UTC time, kept true every AGO_EVERY_MS.
function agoText(iso) {
	const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
	if (seconds > -60) return relative.format(Math.min(0, seconds), "second");
	if (seconds > -3600) return relative.format(Math.round(seconds / 60), "minute");
	return relative.format(Math.round(seconds / 3600), "hour");
}
const AGO_EVERY_MS = 30000;

function showLocalTime(item) {
	const time = item.querySelector("time");
	const local = item.querySelector(".local");
	local.textContent = ` (${agoText(time.dateTime)}) · your time: ${localTime(time.dateTime)}`;
	local.hidden = false;
}

function element(name, attributes, ...children) {
	const node = document.createElement(name);
	for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
	node.append(...children);
	return node;
}

function utcText(iso) {
	return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

// The same markup the server writes (faxItem in live-page.ts), built with
// text nodes only: nothing a sender wrote is ever parsed as HTML.
function itemOf(fax) {
	const image =
		fax.thumbnail_url === null
			? element("span", { class: "thumb" }, "No image")
			: element(
					"a",
					{ class: "thumb", href: fax.view_url },
					element("img", { src: fax.thumbnail_url, alt: `First page of test fax ${fax.slug}` }),
				);
	const pages =
		fax.page_count === null ? "no PDF" : `${fax.page_count} page${fax.page_count === 1 ? "" : "s"}`;
	const facts = element(
		"div",
		{ class: "facts" },
		element("a", { href: fax.view_url }, element("strong", {}, fax.slug)),
		element("br", {}),
		element("span", { class: "from" }, fax.from === null ? "Unknown sender" : fax.from),
		` · ${SOURCES[fax.source]} · `,
		element("span", { class: "pages" }, pages),
		element("br", {}),
		element("time", { datetime: fax.received_at }, utcText(fax.received_at)),
		element("span", { class: "local", hidden: "" }),
	);
	const item = element("li", { "data-slug": fax.slug }, image, facts);
	showLocalTime(item);
	return item;
}

// What kind of outcome a test had (the call ended during page 2, the document
// could not be read…) is not in the API's objects: the server keeps each
// listed fax's words (the ones its list row and its page's verdict show), and
// the rows a render adds ask for theirs in one request, however many they
// are. Not rate limited: the server answers it from memory.
async function fillOutcomes(items) {
	if (items.length === 0) return;
	const slugs = items.map((item) => item.dataset.slug).join(",");
	try {
		const response = await fetch(`/faxtest/outcomes?slugs=${encodeURIComponent(slugs)}`, {
			cache: "no-store",
		});
		const words = response.ok ? await response.json() : {};
		for (const item of items) {
			const row = words[item.dataset.slug];
			if (row) item.querySelector(".pages").after(" · ", element("span", { class: "outcome" }, row));
		}
	} catch {
		// The rows stay without their outcome; each fax's page still says it.
	}
}

// A listed fax never changes: the items already shown are kept as they are,
// so their images are not loaded again. A test that arrives while the page
// is open is marked new (class "new"), so it stands out. The list the page
// came with is the one shown, even empty, when the first request waits on its
// ETag: what that request brings arrived while the page was open.
let filled = list.children.length > 0 || etag !== null;
function render(faxes) {
	const ending = calls.querySelectorAll("li.ending");
	for (const item of ending) item.remove();
	calls.hidden = calls.children.length === 0;
	const shown = new Map([...list.children].map((item) => [item.dataset.slug, item]));
	const added = [];
	const made = [];
	const items = faxes.map((fax) => {
		let item = shown.get(fax.slug);
		if (item === undefined) {
			item = itemOf(fax);
			made.push(item);
		}
		if (filled && !shown.has(fax.slug)) {
			item.classList.add("new");
			added.push(fax);
		}
		return item;
	});
	// A new fax whose call's entry is still shown (not ending): it goes as soon as the stream says the call left.
	const at = performance.now();
	const endedFrom = [...ending].map((item) => callFrom.get(item));
	for (const fax of added) {
		const index = endedFrom.indexOf(fax.from);
		if (index === -1) justListed.push({ at, from: fax.from });
		else endedFrom.splice(index, 1);
	}
	list.replaceChildren(...items);
	filled = true;
	empty.hidden = faxes.length > 0;
	void fillOutcomes(made);
}

function say(text) {
	status.textContent = text;
}

function schedule(delay) {
	clearTimeout(timer);
	timer = setTimeout(poll, delay);
}

// The server's Retry-After when it gave one; else 2, 4, 8 … 60 s, each
// within a fifth either way, so tabs that lost the server together do not
// come back together.
function retryDelay(seconds, failed) {
	const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failed - 1));
	return seconds > 0 ? seconds * 1000 : backoff * (0.8 + Math.random() * 0.4);
}

function retryLater(why, seconds) {
	if (!(seconds > 0)) failures += 1;
	const delay = retryDelay(seconds, failures);
	say(`${why}: trying again in ${Math.round(delay / 1000)} s. The list below is as it was.`);
	schedule(delay);
}

function live() {
	failures = 0;
	say(
		from === null
			? "Live: new tests appear here as they are listed."
			: "Live: new tests of this sender appear here.",
	);
}

async function answered(response) {
	if (response.status === 200) {
		const faxes = await response.json();
		etag = response.headers.get("ETag");
		render(faxes);
		live();
		return schedule(0);
	}
	if (response.status === 304) {
		live();
		return schedule(0);
	}
	const retryAfter = Number(response.headers.get("Retry-After")) || 0;
	if (response.status === 429)
		return retryLater("Paused: this network asked the API too often", retryAfter || 60);
	retryLater(`The server answered ${response.status}`, retryAfter);
}

async function poll() {
	timer = null;
	if (document.hidden) return;
	const sinceLast = performance.now() - lastStart;
	if (sinceLast < MIN_GAP_MS) return schedule(MIN_GAP_MS - sinceLast);
	lastStart = performance.now();
	const params = new URLSearchParams({ limit: String(LIMIT) });
	if (from !== null) params.set("from", from);
	if (etag !== null) params.set("wait", String(WAIT_SECONDS));
	const current = new AbortController();
	controller = current;
	try {
		const headers = etag === null ? {} : { "If-None-Match": etag };
		const response = await fetch(`/api/faxes?${params}`, {
			headers,
			signal: current.signal,
			cache: "no-store",
		});
		if (controller === current) await answered(response);
	} catch {
		if (!current.signal.aborted) retryLater("The server cannot be reached");
	}
}

function restart() {
	controller?.abort();
	controller = null;
	schedule(0);
}

// The calls in progress (lib/pages/calls-part.ts writes the same markup).
const calls = document.getElementById("calls");
const CALLS_WAIT_SECONDS = 25;
const SILENT_AFTER_SECONDS = Number(calls.dataset.silentAfter) || 10;
// A call whose fax is being listed keeps its place this long at most, until the list shows the fax.
const ENDING_KEPT_MS = 5000;
// The list and the stream learn of a listing from two requests, and the held
// list usually answers first: a call that leaves within ENDING_KEPT_MS of the
// list showing a new fax of the same (masked) sender is taken to be that fax's
// call, and its entry goes at once.
let justListed = [];
// The sender each entry built from the stream shows (masked; null when not known).
const callFrom = new WeakMap();
let callsController = null;
let callsTimer = null;
let callsLastStart = Number.NEGATIVE_INFINITY;
let callsFailures = 0;
// The server's clock less the page's: a silence is counted by the server's.
let clockOffset = 0;

function silenceText(item) {
	const heard = Number(item.dataset.heard);
	if (!(heard > 0)) return "";
	const seconds = Math.floor((Date.now() + clockOffset - heard) / 1000);
	if (seconds < SILENT_AFTER_SECONDS) return "";
	return `Your machine has gone silent: nothing from it for ${seconds} s. Our receiver waits for it until its own time limit, then ends the call.`;
}

function showSilences() {
	for (const item of calls.children) {
		const silence = item.querySelector(".silence");
		if (silence !== null) silence.textContent = silenceText(item);
	}
}

function callItem(call) {
	const attributes = { class: "call", "data-call": call.key };
	if (call.view.silenceTold && call.view.heardAt !== null)
		attributes["data-heard"] = String(call.view.heardAt);
	// Its end already told in the server's words (listed next, or not at all): kept as they are when it leaves.
	if (call.view.ended) attributes["data-ended"] = "";
	const done = element(
		"ol",
		{ class: "done" },
		...call.view.done.map((step) => element("li", {}, step.text)),
	);
	const facts = element(
		"div",
		{ class: "facts" },
		element("strong", {}, "Call in progress"),
		element("br", {}),
		element("span", { class: "from" }, call.from === null ? "Sender not known yet" : call.from),
		" · Fax by phone",
		element("br", {}),
		element("span", { class: "now" }, call.view.now),
		" ",
		element("span", { class: "silence", role: "status" }),
		done,
	);
	const item = element("li", attributes, element("span", { class: "thumb" }, "Receiving"), facts);
	callFrom.set(item, call.from);
	return item;
}

function renderCalls(shown) {
	const keys = new Set(shown.map((call) => call.key));
	const left = [...calls.children].filter((item) => !keys.has(item.dataset.call));
	const now = performance.now();
	justListed = justListed.filter((fax) => now - fax.at < ENDING_KEPT_MS);
	// A call that left just after the list showed a new fax of its sender: that fax is on the list already.
	const gone = left.filter((item) => {
		if (item.classList.contains("ending") || !callFrom.has(item)) return true;
		const index = justListed.findIndex((fax) => fax.from === callFrom.get(item));
		if (index === -1) return true;
		justListed.splice(index, 1);
		return false;
	});
	for (const item of gone) {
		if (item.classList.contains("ending")) continue;
		item.classList.add("ending");
		if (!("ended" in item.dataset))
			item.querySelector(".now").textContent = "The call has ended: its fax is being listed.";
		item.querySelector(".silence").textContent = "";
		delete item.dataset.heard;
		setTimeout(() => {
			item.remove();
			calls.hidden = calls.children.length === 0;
		}, ENDING_KEPT_MS);
	}
	calls.replaceChildren(...shown.map(callItem), ...gone);
	calls.hidden = calls.children.length === 0;
	showSilences();
}

function scheduleCalls(delay) {
	clearTimeout(callsTimer);
	callsTimer = setTimeout(streamCalls, delay);
}

// Each event is one `data:` line of JSON: {"now": ms, "calls": [...]}.
async function readEvents(response, signal) {
	const reader = response.body.getReader();
	const decoder = new TextDecoder();
	let buffered = "";
	while (!signal.aborted) {
		const { done, value } = await reader.read();
		if (done) return;
		buffered += decoder.decode(value, { stream: true });
		let end = buffered.indexOf("\n\n");
		while (end !== -1) {
			const data = buffered.slice(0, end).replace(/^data: /, "");
			buffered = buffered.slice(end + 2);
			const event = JSON.parse(data);
			clockOffset = event.now - Date.now();
			renderCalls(event.calls);
			end = buffered.indexOf("\n\n");
		}
	}
}

function callsRetry(response) {
	const retryAfter = Number(response?.headers.get("Retry-After")) || 0;
	if (!(retryAfter > 0)) callsFailures += 1;
	scheduleCalls(retryDelay(retryAfter, callsFailures));
}

async function streamCalls() {
	callsTimer = null;
	if (document.hidden) return;
	const sinceLast = performance.now() - callsLastStart;
	if (sinceLast < MIN_GAP_MS) return scheduleCalls(MIN_GAP_MS - sinceLast);
	callsLastStart = performance.now();
	const params = new URLSearchParams({ wait: String(CALLS_WAIT_SECONDS) });
	if (from !== null) params.set("from", from);
	const current = new AbortController();
	callsController = current;
	try {
		const response = await fetch(`/faxtest/calls?${params}`, { signal: current.signal, cache: "no-store" });
		if (response.status !== 200) return callsRetry(response);
		await readEvents(response, current.signal);
		callsFailures = 0;
		if (callsController === current) scheduleCalls(0);
	} catch {
		if (!current.signal.aborted) callsRetry(null);
	}
}

function stopCalls() {
	callsController?.abort();
	callsController = null;
	clearTimeout(callsTimer);
}

function restartCalls() {
	stopCalls();
	scheduleCalls(0);
}

document.addEventListener("visibilitychange", () => {
	if (!document.hidden) {
		restartCalls();
		return restart();
	}
	controller?.abort();
	controller = null;
	clearTimeout(timer);
	stopCalls();
	say("Paused while this tab is hidden.");
});

// The visitor's own filter: what they typed stays in the field, the page
// says which tests it shows with a way back to all, and the held request is
// cancelled at once for the new one.
function showFilter() {
	document.getElementById("filter-shown")?.remove();
	if (from === null) return;
	const all = element("a", { href: "/faxtest" }, "Show all tests");
	all.addEventListener("click", (event) => {
		event.preventDefault();
		input.value = "";
		applyFilter();
	});
	form.after(element("p", { id: "filter-shown" }, "Showing only the tests of the sender you entered. ", all));
}

function applyFilter() {
	const value = input.value.trim();
	from = value === "" ? null : value;
	showFilter();
	etag = null;
	filled = false;
	list.replaceChildren();
	say(from === null ? "Showing all tests…" : "Showing only the tests of the sender you entered…");
	lastStart = Number.NEGATIVE_INFINITY;
	restart();
	callsLastStart = Number.NEGATIVE_INFINITY;
	restartCalls();
}

form.addEventListener("submit", (event) => {
	event.preventDefault();
	applyFilter();
});

for (const item of list.children) showLocalTime(item);
setInterval(() => {
	for (const item of list.children) showLocalTime(item);
}, AGO_EVERY_MS);
live();
schedule(0);
scheduleCalls(0);
setInterval(showSilences, 1000);
