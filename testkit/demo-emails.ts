/**
 * The demo's scan-to-email and Internet-fax tests (testkit/demo-reports.ts):
 * real scans (fixtures/scans) in messages as our Postfix hands them over
 * (its Received header first, the Return-Path its pipe prepends), checked
 * against a real DNS server on loopback that serves their domains' records,
 * one message for each verdict an email test can have.
 */
import { parseFaxEmail } from "../lib/document/index.ts";
import { refusalFile, refusalReason, reportOf } from "../lib/ingest/index.ts";
import {
	buildReport,
	checkedEmailReport,
	type FaxReport,
	type MailRefusalReport,
} from "../lib/report/index.ts";
import { startDnsServer } from "./dns-server.ts";
import { SCAN_ATTACHMENT, scanEmailMessage } from "./scan-email.ts";

// The device's address as our Postfix saw it; northwind.test's and tailspin.test's SPF list it.
const CLIENT = "192.0.2.10";
const RECEIVED = "Sat, 28 Nov 2026 10:00:05 +0000";

interface DemoEmail {
	domain: string;
	/** The device's Date header. */
	date: string;
	attachment: { path: string; contentType: string; filename: string };
}

const SCAN = SCAN_ATTACHMENT;

const ZONE: [string, string][] = [
	["northwind.test", `v=spf1 ip4:${CLIENT} -all`],
	["_dmarc.northwind.test", "v=DMARC1; p=reject"],
	["contoso.test", "v=spf1 ip4:203.0.113.1 -all"],
	["_dmarc.contoso.test", "v=DMARC1; p=reject"],
	["fabrikam.test", "v=spf1 ip4:203.0.113.1 ~all"],
	["_dmarc.fabrikam.test", "v=DMARC1; p=quarantine"],
	["tailspin.test", `v=spf1 ip4:${CLIENT} -all`],
];

/** Each demo email test by slug: the message it came as. */
const EMAILS: Record<string, DemoEmail> = {
	fax_DemoScanOk01: { domain: "northwind.test", date: "Sat, 28 Nov 2026 10:00:04 +0000", attachment: SCAN },
	fax_DemoScanRej1: { domain: "contoso.test", date: "Sat, 28 Nov 2026 10:00:03 +0000", attachment: SCAN },
	fax_DemoScanSpm1: { domain: "fabrikam.test", date: "Sat, 28 Nov 2026 10:00:04 +0000", attachment: SCAN },
	// The device's clock set to a local time 3 hours behind UTC, sent as UTC.
	fax_DemoScanClk1: { domain: "tailspin.test", date: "Sat, 28 Nov 2026 07:00:02 +0000", attachment: SCAN },
	fax_DemoTiffNoF1: {
		domain: "tailspin.test",
		date: "Sat, 28 Nov 2026 10:00:04 +0000",
		attachment: {
			path: "fixtures/scans/t37-wide-page2.tif",
			contentType: "image/tiff; application=faxbw",
			filename: "fax.tif",
		},
	},
	fax_DemoTiffOnly: {
		domain: "tailspin.test",
		date: "Sat, 28 Nov 2026 10:00:04 +0000",
		attachment: { path: "fixtures/scans/grey-lzw.tif", contentType: "image/tiff", filename: "scan.tif" },
	},
};

const message = ({ domain, date, attachment }: DemoEmail) =>
	scanEmailMessage({
		domain,
		date,
		attachment,
		messageId: `demo.${date.replace(/\W/g, "")}`,
		relayed: { client: CLIENT, at: RECEIVED },
	});

/** The report ingest builds of a message our Postfix relayed, its checks asked of `dnsServers`. */
async function relayedReport(demo: DemoEmail, dnsServers: string[]): Promise<FaxReport> {
	const bytes = new TextEncoder().encode(await message(demo));
	const email = await parseFaxEmail(bytes);
	const report = buildReport({ source: "email", bytes, email, relayedByUs: true });
	if (report.email === null) throw new Error("a demo email without its email report");
	return { ...report, email: await checkedEmailReport(report.email, email, bytes, { dnsServers }) };
}

/** A message refused as too large, as mail-watch lists it from Postfix's log. */
async function refusedReport(): Promise<FaxReport> {
	const refusal = {
		queueId: "4Fx9Q2Zk1sz8",
		kind: "too-large",
		bytes: null,
		sender: "scanner@northwind.test",
		recipient: "fax@testfax.example",
		client: CLIENT,
	} as const;
	const file = refusalFile(refusal, 0);
	const refused = file.refused as MailRefusalReport;
	return JSON.parse(await reportOf(file, null, refusalReason(refused))) as FaxReport;
}

/** The demo's email tests' reports, by slug. */
export async function demoEmailReports(): Promise<Record<string, FaxReport>> {
	const dns = await startDnsServer({ zone: "test", txt: ZONE });
	try {
		const reports: Record<string, FaxReport> = {};
		for (const [slug, demo] of Object.entries(EMAILS))
			reports[slug] = await relayedReport(demo, [dns.address]);
		reports.fax_DemoTooBig01 = await refusedReport();
		return reports;
	} finally {
		await dns.stop();
	}
}
