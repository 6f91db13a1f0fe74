// What to try next, from ONE table a fax engineer can review (docs/testers.md
// shows it): each piece of advice, when it fits, and its words. It reads the
// model of the call only, and never proposes what the call already did: a
// lower speed only above 9,600 bit/s, ECM only when it was off.
import type { CallModel } from "./call-model.ts";
import type { AdviceKey } from "./hylafax-reasons.ts";

const numbers = new Intl.NumberFormat("en");

/** The speed advice stops at: V.29's 9,600 bit/s, which VoIP lines carry far better than V.17's rates. */
export const STEADY_SPEED = 9600;

type AdviceRule = {
	key: AdviceKey;
	/** When it fits, in a sentence for the docs' table. */
	fits: string;
	when: (model: CallModel) => boolean;
	words: (model: CallModel) => string;
};

/** The fastest rate a training was tried at when none succeeded; null otherwise. */
function failedTrainingRate(model: CallModel): number | null {
	if (model.speed !== null) return null;
	const rates = model.trainings.map((training) => training.bitsPerSecond ?? 0);
	return rates.length === 0 ? null : Math.max(...rates);
}

/** The page data came damaged: bad lines, or parts of pages asked for again. */
const pageTrouble = (model: CallModel) => model.line.badLines > 0 || model.line.pprs > 0;

/** The line damaged what came: frames, or the page data. */
const lineTrouble = (model: CallModel) => model.line.damagedFrames > 0 || pageTrouble(model);

function speedText(model: CallModel): string {
	const ran = model.speed;
	const rate = ran?.bitsPerSecond ?? failedTrainingRate(model) ?? 0;
	const modulation = ran?.modulation ? ` (${ran.modulation})` : "";
	const verb = ran === null ? "tried to train" : "ran";
	return `This call ${verb} at ${numbers.format(rate)} bit/s${modulation}: set your fax machine to ${numbers.format(STEADY_SPEED)} bit/s (on some machines “overseas mode” or “V.29”), which VoIP lines carry far more reliably.`;
}

function lineText(model: CallModel): string {
	const evidence: string[] = [];
	if (model.line.damagedFrames > 0)
		evidence.push(`${model.line.damagedFrames} of its signals arrived damaged`);
	if (model.line.pprs > 0)
		evidence.push(
			`parts of pages were asked for again ${model.line.pprs === 1 ? "once" : `${model.line.pprs} times`}`,
		);
	if (model.line.badLines > 0) evidence.push(`${numbers.format(model.line.badLines)} lines arrived damaged`);
	const why =
		evidence.length === 0
			? "The line lost or damaged the signal"
			: `The line damaged the call (${evidence.join(", ")})`;
	return `${why}: on a VoIP line, ask your provider for T.38, or for G.711 without compression and with echo cancellation off for fax; or try from a direct analogue line.`;
}

/** The advice table, in the order it is shown. */
export const ADVICE: AdviceRule[] = [
	{
		key: "check-caller",
		fits: "No fax machine answered ours: nothing came back after our invitation (DIS).",
		when: (model) => model.faxMachine === false,
		words: () =>
			"Check the number you dialled, and that a fax machine is calling: a phone, or a fax machine set to voice, does not answer our fax tones.",
	},
	{
		key: "lower-speed",
		fits: "The call ran above 9,600 bit/s and a training failed, its page data came damaged (bad lines, parts asked for again) or HylaFAX's reason points at the fast signal; or its training failed above 9,600 bit/s. Never when it already ran at 9,600 bit/s or less, nor for damaged 300 bit/s signals alone, which a lower page speed does not change.",
		when: (model) => {
			const ran = model.speed?.bitsPerSecond ?? null;
			if (ran !== null)
				return (
					ran > STEADY_SPEED &&
					(model.ending.advice.includes("lower-speed") ||
						pageTrouble(model) ||
						model.trainings.some((training) => training.ok === false))
				);
			return (failedTrainingRate(model) ?? 0) > STEADY_SPEED;
		},
		words: speedText,
	},
	{
		key: "ecm-on",
		fits: "The call ran without error correction (ECM), and lines arrived damaged or the call broke off during a page; never when ECM was on.",
		when: (model) =>
			model.ecm === false &&
			(model.line.badLines > 0 || model.failure === "during-page" || model.ending.advice.includes("ecm-on")),
		words: () =>
			"Turn error correction (ECM) on in your fax machine's settings: damaged parts of a page are then sent again instead of filled in.",
	},
	{
		key: "line",
		fits: "Frames arrived damaged, lines were damaged, parts of pages were asked for again (PPR), or HylaFAX's reason points at the line.",
		when: (model) => lineTrouble(model) || model.ending.advice.includes("line"),
		words: lineText,
	},
	{
		key: "sender-report",
		fits: "Your machine ended the call or went silent, or HylaFAX's reason is one that your machine's own report explains.",
		when: (model) => model.ending.by === "sender" || model.ending.advice.includes("sender-report"),
		words: (model) =>
			model.ending.by === "sender"
				? "Your machine ended the call: look at its transmission report, or its display, for the reason it gives."
				: "Look at your machine's transmission report, or its display: it says what your machine saw of this call.",
	},
	{
		key: "try-again",
		fits: "Our side failed (our disk, our modem or HylaFAX itself).",
		when: (model) => model.ending.by === "receiver-system",
		words: () => "The fault was on our side, not yours: send the test again in a few minutes.",
	},
];

export type Advice = { key: AdviceKey; words: string };

/**
 * The advice that fits the call, in the table's order; none for a call that
 * went well. Where no fax machine answered, only checking the caller fits:
 * nothing of the line or the machine's settings was seen.
 */
export function adviceFor(model: CallModel): Advice[] {
	if (model.failure === "none" && !lineTrouble(model)) return [];
	const fitting = ADVICE.filter((rule) => rule.when(model));
	const shown = model.faxMachine === false ? fitting.filter((rule) => rule.key === "check-caller") : fitting;
	return shown.map((rule) => ({ key: rule.key, words: rule.words(model) }));
}
