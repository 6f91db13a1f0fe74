import { afterAll, expect, test } from "bun:test";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { tiffFacts } from "../../lib/document/index.ts";
import { faxinfoTime, hylafaxSession } from "../../lib/report/index.ts";
import { makeTempDir } from "../../testkit/server.ts";
import { faxinfoFields } from "../../testkit/transmission-report.ts";
import { PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

// A real reception, its first page's session tags rewritten by libtiff's
// tiffset; HylaFAX's own faxinfo reads each rewritten file, and the report
// must say what it says.
const RECEIVED = join(import.meta.dir, "../../fixtures/ingest/hylafax-mmr-ecm-1.tif");
const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hexByte = fc
	.integer({ min: 0, max: 255 })
	.map((byte) => byte.toString(16).toUpperCase().padStart(2, "0"));
// DCS frames of 3 to 10 bytes, as faxgetty writes them; sometimes the all-zero one faxinfo ignores.
const dcs = fc.oneof(
	fc.array(hexByte, { minLength: 3, maxLength: 10 }).map((bytes) => bytes.join(" ")),
	fc.constant("00 00 00"),
);
// Both layouts of FaxRecvParams: the version-1 one (bit 21 set) and the original.
const params = fc.oneof(
	fc.integer({ min: 0, max: (1 << 21) - 1 }).map((value) => value | (1 << 21)),
	fc.integer({ min: 0, max: (1 << 21) - 1 }),
);
const yResolution = fc.constantFrom("98", "196", "391", "100", "200", "300", "400");

function tiffset(path: string, tag: number, value: string): void {
	const result = Bun.spawnSync(["tiffset", "-s", String(tag), value, path], { stderr: "pipe" });
	if (result.exitCode !== 0) throw new Error(`tiffset ${tag}: ${result.stderr}`);
}

test(
	"property: the session decoded from HylaFAX's tags is faxinfo's, field for field",
	async () => {
		let count = 0;
		await fc.assert(
			fc.asyncProperty(
				params,
				dcs,
				yResolution,
				fc.integer({ min: 0, max: 4000 }),
				async (v, frame, yres, seconds) => {
					const path = join(dir, `case-${count++}.tif`);
					copyFileSync(RECEIVED, path);
					tiffset(path, 34908, String(v));
					tiffset(path, 34911, frame);
					tiffset(path, 34910, String(seconds));
					tiffset(path, 283, yres);
					const faxinfo = faxinfoFields(path);
					const facts = tiffFacts(await Bun.file(path).bytes());
					const session = facts === null ? null : hylafaxSession(facts);
					rmSync(path);
					const shown: Record<string, string | undefined> = {
						SignalRate: session?.signalRate,
						DataFormat: session?.dataFormat,
						ErrCorrect: session?.ecm ? "Yes" : "No",
						Quality: session?.quality,
						TimeToRecv: session?.secondsOnLine == null ? "<unknown>" : faxinfoTime(session.secondsOnLine),
					};
					expect(shown).toEqual({
						SignalRate: faxinfo.SignalRate,
						DataFormat: faxinfo.DataFormat,
						ErrCorrect: faxinfo.ErrCorrect,
						Quality: faxinfo.Quality,
						TimeToRecv: faxinfo.TimeToRecv,
					});
				},
			),
			runs("hylafaxSession"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);
