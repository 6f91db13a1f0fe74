// The session HylaFAX negotiated for a received fax, decoded from the tags it
// writes into the file as its own faxinfo(8) decodes them (HylaFAX 6.0.7,
// util/faxinfo.c++ with libhylafax/Class2Params.c++ and FaxParams.c++):
// FaxRecvParams first, then YResolution for inch-based resolutions, then the
// DCS frame (FaxDcs) for resolution, data format and ECM, keeping the bit rate.
import type { TiffPageFacts } from "../document/index.ts";

/** What faxinfo prints of a received fax, field by field, in its words. */
export type HylafaxSession = {
	/** `SignalRate:`, e.g. `14400 bit/s`. */
	signalRate: string;
	bitsPerSecond: number;
	/** The modem standard the DCS frame names for that rate (`V.17`); null when it does not say. */
	modulation: string | null;
	/** `DataFormat:`, e.g. `2-D MMR`. */
	dataFormat: string;
	/** `ErrCorrect:` Yes. */
	ecm: boolean;
	/** `Quality:`, e.g. `Normal`, `Fine`, `200 lines/inch`. */
	quality: string;
	/** `TimeToRecv:` in seconds, the sum of FaxRecvTime over the pages; null when faxinfo says `<unknown>`. */
	secondsOnLine: number | null;
};

// Class2Params' codes (libhylafax/class2.h).
const VR = { normal: 0x00, fine: 0x01, r8: 0x02, r16: 0x04, i100: 0x08, i200: 0x10, i400: 0x20, i300: 0x40 };
const DF = { mh: 0, mr: 1, mmr: 3, jbig: 4 };
const EC = { off: 0, on64: 1, on256: 2 };
const RATES = [2400, 4800, 7200, 9600, 12000, 14400, 16800, 19200, 21600, 24000, 26400, 28800, 31200, 33600];
const DATA_FORMATS = [
	"1-D MH",
	"2-D MR",
	"2-D Uncompressed Mode",
	"2-D MMR",
	"JBIG",
	"JPEG Greyscale",
	"JPEG Full-Color",
];
// DCS bits (libhylafax/t.30.h), over the frame's first three bytes (dcs) and the next four (xinfo).
const DCS_SIGRATE = 0x3c00;
const DCS_7MMVRES = 0x200;
const DCS_2DENCODE = 0x100;
const X_G4COMP = 0x02 << 24;
const X_ECMODE = 0x20 << 24;
const X_FRAME_64 = 1 << 28;
const X_INCHRES = 0x10 << 8;
const X_400X400 = 0x20 << 8;
const X_300X300 = 0x40 << 8;
const X_200X400 = 0x80 << 8;
// DCSbrTab with the modulation each code names; null where T.30 leaves it undefined.
const DCS_RATES: ([number, string] | null)[] = [
	[0, "V.27ter"],
	[5, "V.17"],
	[5, "V.33"],
	null,
	[1, "V.27ter"],
	[4, "V.17"],
	[4, "V.33"],
	null,
	[3, "V.29"],
	[3, "V.17"],
	[3, "V.33"],
	null,
	[2, "V.29"],
	[2, "V.17"],
	[2, "V.33"],
	null,
];
const V34_FIRST_RATE = 6;

type Params = { vr: number; br: number; df: number; ec: number; jp: number };

/** Class2Params::decode: both layouts, told apart by the version bit. */
function decodeRecvParams(v: number): Params {
	if (v >>> 21 === 1) {
		return { vr: v & 7, br: (v >> 3) & 15, df: (v >> 14) & 3, ec: (v >> 16) & 1, jp: 0 };
	}
	return { vr: v & 1, br: (v >> 1) & 7, df: (v >> 9) & 3, ec: (v >> 11) & 1, jp: 0 };
}

// "inch & metric resolutions overlap and are distinguished by yres"
const INCH_BY_YRES: Record<number, number> = { 100: VR.i100, 200: VR.i200, 400: VR.i400, 300: VR.i300 };

/** FaxParams::asciiDecode: hex pairs; each byte after the third sets the extend bit (bit 0) of those before it. */
function dcsBytes(text: string): number[] {
	const digit = (code: number) => code - (code > 64 ? 55 : 48);
	const bytes: number[] = [];
	for (let at = 0; at + 1 < text.length; at += text[at + 2] === " " ? 3 : 2) {
		const written =
			bytes.push(((digit(text.charCodeAt(at)) << 4) + digit(text.charCodeAt(at + 1))) & 0xff) - 1;
		if (written < 3) continue;
		for (let byte = written - 1; byte >= 2; byte--) bytes[byte] = (bytes[byte] ?? 0) | 1;
	}
	return bytes;
}

function bitEnabled(bytes: number[], bit: number): boolean {
	return ((bytes[Math.floor((bit - 1) / 8)] ?? 0) & (1 << (7 - ((bit - 1) % 8)))) !== 0;
}

function dcsResolution(dcs: number, xinfo: number): number {
	if (xinfo & X_INCHRES) {
		if (xinfo & X_400X400) return VR.r16;
		if (xinfo & X_300X300) return VR.i300;
		if (xinfo & X_200X400) return VR.i400;
		return dcs & DCS_7MMVRES ? VR.i200 : VR.i100;
	}
	if (xinfo & X_300X300) return VR.i300;
	if (xinfo & X_400X400) return VR.r16;
	if (xinfo & X_200X400) return VR.r8;
	return dcs & DCS_7MMVRES ? VR.fine : VR.normal;
}

/** Class2Params::setFromDCS as faxinfo applies it: everything but the bit rate. */
function applyDcs(params: Params, bytes: number[]): Params {
	const byte = (i: number) => bytes[i] ?? 0;
	const dcs = (byte(0) << 16) | (byte(1) << 8) | byte(2);
	const xinfo = ((byte(3) << 24) | (byte(4) << 16) | (byte(5) << 8) | byte(6)) >>> 0;
	let df = (xinfo & X_G4COMP) !== 0 && (xinfo & X_ECMODE) !== 0 ? DF.mmr : dcs & DCS_2DENCODE ? DF.mr : DF.mh;
	let ec = xinfo & X_ECMODE ? (xinfo & X_FRAME_64 ? EC.on64 : EC.on256) : EC.off;
	let jp = 0;
	if (bitEnabled(bytes, 78) || bitEnabled(bytes, 79)) df = DF.jbig;
	if (bitEnabled(bytes, 68)) jp = 1;
	if (bitEnabled(bytes, 69) && jp === 1) jp = 2;
	if (jp !== 0) df = DF.mh;
	if (ec === EC.off && (df === DF.mmr || df === DF.jbig || jp !== 0)) ec = EC.on256;
	return { vr: dcsResolution(dcs, xinfo), br: params.br, df, ec, jp };
}

function qualityName(vr: number): string {
	const named: Record<number, string> = {
		[VR.normal]: "Normal",
		[VR.fine]: "Fine",
		[VR.r8]: "Superfine",
		[VR.r16]: "Hyperfine",
	};
	const lines: Record<number, number> = { [VR.i100]: 100, [VR.i200]: 200, [VR.i400]: 400, [VR.i300]: 300 };
	return named[vr] ?? `${lines[vr] ?? 4294967295} lines/inch`;
}

/** The modulation the DCS names, when its rate is the session's: V.34 rates are not in the DCS. */
function modulationOf(br: number, dcsText: string | null): string | null {
	if (br >= V34_FIRST_RATE && br < RATES.length) return "V.34";
	if (dcsText === null) return null;
	const bytes = dcsBytes(dcsText);
	const code = ((((bytes[1] ?? 0) << 8) | (bytes[2] ?? 0)) & DCS_SIGRATE) >> 10;
	const entry = DCS_RATES[code];
	return entry && entry[0] === br ? entry[1] : null;
}

/** The session of a fax HylaFAX received; null when the file lacks FaxRecvParams (not received by HylaFAX). */
export function hylafaxSession(pages: TiffPageFacts[]): HylafaxSession | null {
	const first = pages[0];
	if (first === undefined || first.faxRecvParams === null) return null;
	let params = decodeRecvParams(first.faxRecvParams);
	const inch = INCH_BY_YRES[Math.trunc(first.yResolution ?? 0)];
	if (inch !== undefined) params = { ...params, vr: inch };
	const dcs = first.faxDcs?.replace(/[^\x20-\x7e]/g, "?") ?? null;
	const usableDcs = dcs !== null && !dcs.startsWith("00 00 00") ? dcs : null;
	if (usableDcs !== null) params = applyDcs(params, dcsBytes(usableDcs));
	const seconds = pages.reduce((sum, page) => sum + (page.faxRecvTime ?? 0), 0);
	const dataFormat = params.df + (params.jp > 0 ? params.jp + 4 : 0);
	return {
		signalRate: params.br < RATES.length ? `${RATES[params.br]} bit/s` : "0 bit/s",
		bitsPerSecond: RATES[params.br] ?? 0,
		modulation: modulationOf(params.br, usableDcs),
		dataFormat: DATA_FORMATS[dataFormat > 6 ? 0 : dataFormat] ?? "1-D MH",
		ecm: params.ec !== EC.off,
		quality: qualityName(params.vr),
		secondsOnLine: seconds === 0 ? null : seconds,
	};
}

/** faxinfo's TimeToRecv: `H:MM:SS` (FmtTime.c++). */
export function faxinfoTime(seconds: number): string {
	const hours = Math.floor(seconds / 3600);
	const minutes = Math.floor((seconds % 3600) / 60);
	const rest = seconds % 60;
	return `${hours}:${String(minutes).padStart(2, "0")}:${String(rest).padStart(2, "0")}`;
}
