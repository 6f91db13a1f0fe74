// Every reason HylaFAX 6.0.7 can give for a failed receive, in ONE table:
// who ended the call, what it means in a tester's words, and the advice that
// fits. The verdict and the fax's page read it; nothing else should turn a
// HylaFAX reason into words.
//
// Where the strings come from: HylaFAX 6.0.7 as Debian builds it (package
// hylafax 3:6.0.7-5; its orig tarball is the same tree as the HYLAFAX-6_0_7
// tag of github.com/ifax/HylaFAX): the Status(NNN, "...") literals of the
// receiving code in faxd/ (Class1Recv.c++, Class1.c++'s switchingPause,
// CopyQuality.c++'s page-data readers, FaxRecv.c++, faxGettyApp.c++'s
// operator abort) and the receive-side Class 2 hangup codes of
// faxd/Class2.c++. FaxServer::recvFax logs that Status as
// `RECV FAX: <reason>` and `session with X terminated abnormally: <reason>`,
// hands it to FaxRcvdCmd and writes it in xferfaxlog's RECV and CALL records.
// `codes` are the Status numbers (faxd/STATUS.txt); a string written by two
// files names both in `source`, comma-separated.
//
// How they are checked: bench/hylafax-reasons.ts lists the strings from the
// source tree into fixtures/hylafax/reasons-6.0.7.txt, and
// test/report/hylafax-reasons.test.ts checks that this table covers that list
// one for one, that each entry's text is in Debian's installed faxgetty, and
// that the words follow the page's rules.

export type EndedBy = "sender" | "receiver-timeout" | "line" | "receiver-system";
export type AdviceKey = "lower-speed" | "ecm-on" | "line" | "check-caller" | "sender-report" | "try-again";
export type HylafaxReason = {
	/** The string as in the source; formatted parts as the source writes them (e.g. "%s"). */
	raw: string;
	/** Only for formatted strings. */
	pattern?: RegExp;
	/** HylaFAX's Status numbers for this string (faxd/STATUS.txt). */
	codes: readonly number[];
	/** The file(s) of HylaFAX 6.0.7 that write it, e.g. "faxd/Class1Recv.c++". */
	source: string;
	/** Who ended the call. */
	endedBy: EndedBy;
	/** Plain words for a tester who only pressed Send. */
	words: string;
	/** The advice that fits this reason, most fitting first. */
	advice: AdviceKey[];
};

const CLASS1 = "faxd/Class1Recv.c++";
const CLASS2 = "faxd/Class2.c++";
const RECV = "faxd/FaxRecv.c++";
const MISSING_EOL =
	"For 5 seconds our receiver found no readable line of the page in your machine's data, so it gave up on the page.";

/** Class 1 modems (the receivers' iaxmodems): HylaFAX runs the fax protocol itself. */
const CLASS1_REASONS: HylafaxReason[] = [
	{
		raw: "Failure to receive silence (synchronization failure).",
		codes: [100],
		source: `faxd/Class1.c++, ${CLASS1}`,
		endedBy: "line",
		words:
			"The two machines lost step: our receiver waited for a moment of silence between signals and never heard it, as happens on a noisy line or when the call drops.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "Failure to raise V.21 transmission carrier.",
		codes: [101],
		source: CLASS1,
		endedBy: "receiver-system",
		words: "Our receiver's modem failed to start sending its reply to your machine, so the call ended.",
		advice: ["try-again"],
	},
	{
		raw: "No sender protocol (T.30 T1 timeout)",
		codes: [102],
		source: CLASS1,
		endedBy: "receiver-timeout",
		words:
			"Our receiver announced itself as a fax machine again and again, but no usable answer from a sending fax machine came before its time limit ran out.",
		advice: ["check-caller", "line"],
	},
	{
		raw: "RSPREC error/got DCN (sender abort)",
		codes: [103],
		source: CLASS1,
		endedBy: "sender",
		words:
			"Your fax machine gave up and ended the call while the two machines were still agreeing how to send.",
		advice: ["sender-report", "line"],
	},
	{
		raw: "RSPREC invalid response received",
		codes: [104, 255],
		source: `${CLASS1}, ${CLASS2}`,
		endedBy: "sender",
		words:
			"Your fax machine sent a reply our receiver did not expect at that point of the call, so the call ended.",
		advice: ["sender-report"],
	},
	{
		raw: "Failure to train modems",
		codes: [105],
		source: CLASS1,
		endedBy: "line",
		words:
			"The two modems could not settle on a speed: your machine's short speed test before the page did not arrive clean, and no slower try succeeded in time.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "RSPREC error/got EOT",
		codes: [106],
		source: CLASS1,
		endedBy: "sender",
		words:
			"The line went quiet as if your fax machine had hung up, while the two machines were still agreeing how to send.",
		advice: ["sender-report", "line"],
	},
	{
		raw: "Can not continue after DIS/DTC",
		codes: [107],
		source: CLASS1,
		endedBy: "sender",
		words:
			"After a page, your machine sent the greeting of a receiving machine instead of saying what comes next, and our receiver cannot go on from there.",
		advice: ["sender-report"],
	},
	{
		raw: "COMREC received DCN (sender abort)",
		codes: [108],
		source: CLASS1,
		endedBy: "sender",
		words: "Your fax machine ended the call on purpose before the fax was complete.",
		advice: ["sender-report"],
	},
	{
		raw: "No response to RNR repeated 3 times.",
		codes: [109],
		source: CLASS1,
		endedBy: "receiver-timeout",
		words:
			"Our receiver asked your machine three times to wait while it saved the page, and your machine never answered.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "COMREC invalid response received",
		codes: [110, 256],
		source: `${CLASS1}, ${CLASS2}`,
		endedBy: "sender",
		words:
			"Your fax machine sent a command our receiver did not expect at that point of the page exchange, so the call ended.",
		advice: ["sender-report"],
	},
	{
		raw: "V.21 signal reception timeout; expected page possibly not received in full",
		codes: [111],
		source: CLASS1,
		endedBy: "receiver-timeout",
		words:
			"After the page data, our receiver waited for your machine to say the page was done and heard nothing in time, so the page may be incomplete.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "Failed to properly detect high-speed data carrier.",
		codes: [112],
		source: CLASS1,
		endedBy: "line",
		words:
			"Our receiver could not pick up your machine's fast page signal, so the page or its speed test never came through.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "Received invalid CTC signal in V.34-Fax.",
		codes: [113],
		source: CLASS1,
		endedBy: "sender",
		words:
			"During a super G3 (V.34) call, your machine sent a speed-change request that is not allowed there, so the call ended.",
		advice: ["sender-report", "lower-speed"],
	},
	{
		raw: "Failed to properly open V.34 primary channel.",
		codes: [114],
		source: CLASS1,
		endedBy: "line",
		words: "The fast super G3 (V.34) page channel between the two machines could not be opened on this line.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "Received premature V.34 termination.",
		codes: [115],
		source: CLASS1,
		endedBy: "line",
		words: "The super G3 (V.34) connection between the two machines broke off before the page was done.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "Failed to properly open V.34 control channel.",
		codes: [116],
		source: CLASS1,
		endedBy: "line",
		words:
			"The super G3 (V.34) channel that carries the signals between pages could not be opened on this line.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "COMREC invalid response to repeated PPR received",
		codes: [117],
		source: CLASS1,
		endedBy: "sender",
		words:
			"Our receiver asked your machine again to resend the damaged parts of a page, and its reply made no sense, so the call ended.",
		advice: ["sender-report", "line"],
	},
	{
		raw: "T.30 T2 timeout, expected signal not received",
		codes: [118],
		source: CLASS1,
		endedBy: "receiver-timeout",
		words:
			"Our receiver waited for your machine's next signal during the page exchange, and nothing came in time.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "COMREC invalid partial-page signal received",
		codes: [119],
		source: CLASS1,
		endedBy: "sender",
		words:
			"Your fax machine ended a block of page data with a signal our receiver could not make sense of, so the call ended.",
		advice: ["sender-report"],
	},
	{
		raw: "Cannot synchronize ECM frame reception.",
		codes: [120],
		source: CLASS1,
		endedBy: "line",
		words:
			"Our receiver could not lock onto the page data your machine sent with error correction (ECM), so the page was lost.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "ECM page received containing no image data.",
		codes: [121],
		source: CLASS1,
		endedBy: "sender",
		words:
			"Your machine's page arrived intact, but it held no image at all, so our receiver did not accept it.",
		advice: ["sender-report"],
	},
	{
		raw: "Timeout waiting for Phase C carrier drop",
		codes: [154],
		source: CLASS1,
		endedBy: "line",
		words:
			"After a block of page data, your machine's fast signal did not stop as it should, so our receiver gave up.",
		advice: ["line"],
	},
	{
		raw: "PPM received with no image data.  To continue risks receipt confirmation.",
		codes: [155],
		source: CLASS1,
		endedBy: "line",
		words:
			"Your machine said a page was done, but none of its data had arrived, so our receiver hung up rather than confirm a page it never got.",
		advice: ["lower-speed", "ecm-on", "line"],
	},
];

/** Whatever the modem class: our files, our limits, the sender's procedure interrupt, an operator's abort. */
const SERVER_REASONS: HylafaxReason[] = [
	{
		raw: "Unable to open TIFF file %s for writing",
		pattern: /^Unable to open TIFF file (.+) for writing$/,
		codes: [901],
		source: RECV,
		endedBy: "receiver-system",
		words: "Our receiver could not open a file to store your fax in, a fault on our side.",
		advice: ["try-again"],
	},
	{
		raw: "Unable to create temp file for received data: %s",
		pattern: /^Unable to create temp file for received data: (.*)$/,
		codes: [902],
		source: RECV,
		endedBy: "receiver-system",
		words: "Our receiver could not create a file to store your fax in, a fault on our side.",
		advice: ["try-again"],
	},
	{
		raw: "Permission denied (unnacceptable client TSI)",
		codes: [350],
		source: RECV,
		endedBy: "receiver-system",
		words:
			"Our receiver is set to accept faxes only from certain sender numbers, and the number your machine gave was not one of them.",
		advice: [],
	},
	{
		raw: "Permission denied (unnacceptable client PWD)",
		codes: [351],
		source: RECV,
		endedBy: "receiver-system",
		words:
			"Our receiver is set to accept faxes only with a password, and your machine sent none or a wrong one.",
		advice: [],
	},
	{
		raw: "Procedure interrupt received, job terminated",
		codes: [351],
		source: RECV,
		endedBy: "sender",
		words:
			"Your machine asked for a person to come on the line during the call, which our receiver does not support, so the call ended.",
		advice: ["sender-report"],
	},
	{
		raw: "Maximum receive page count exceeded, call terminated",
		codes: [304],
		source: RECV,
		endedBy: "receiver-system",
		words: "Your fax had more pages than our receiver accepts in one call, so it ended the call.",
		advice: [],
	},
	{
		raw: "Missing EOL after 5 seconds",
		codes: [50],
		source: "faxd/CopyQuality.c++",
		endedBy: "line",
		words: MISSING_EOL,
		advice: ["ecm-on", "lower-speed", "line"],
	},
	{
		raw: "Write error to file %s",
		pattern: /^Write error to file (.+)$/,
		codes: [908],
		source: "faxd/CopyQuality.c++",
		endedBy: "receiver-system",
		words: "Our receiver could not write the page to its disk and ended the call, a fault on our side.",
		advice: ["try-again"],
	},
	{
		raw: "Receive aborted due to operator intervention",
		codes: [301],
		source: "faxd/faxGettyApp.c++",
		endedBy: "receiver-system",
		words: "Someone running our receiver stopped the call by hand.",
		advice: ["try-again"],
	},
];

/** Class 2 modems: the modem runs the fax protocol and names its hang-up cause. */
const CLASS2_REASONS: HylafaxReason[] = [
	{
		raw: "Unknown hangup code",
		codes: [210],
		source: CLASS2,
		endedBy: "receiver-system",
		words: "Our receiver's modem ended the call for a reason our software does not know.",
		advice: ["try-again"],
	},
	{
		raw: "Normal and proper end of connection",
		codes: [211],
		source: CLASS2,
		endedBy: "sender",
		words: "Your fax machine closed the call in the normal way, but before the fax was complete.",
		advice: ["sender-report"],
	},
	{
		raw: "Ring detect without successful handshake",
		codes: [212],
		source: CLASS2,
		endedBy: "receiver-timeout",
		words: "Our receiver answered the call, but no fax machine greeted it back.",
		advice: ["check-caller"],
	},
	{
		raw: "Call aborted,  from +FK or <CAN>",
		codes: [213],
		source: CLASS2,
		endedBy: "receiver-system",
		words: "Our receiver's software told its modem to stop the call.",
		advice: ["try-again"],
	},
	{
		raw: "No loop current",
		codes: [214],
		source: CLASS2,
		endedBy: "line",
		words: "The phone line went dead during the call.",
		advice: ["line"],
	},
	{
		raw: "Unspecified Phase A error",
		codes: [217],
		source: CLASS2,
		endedBy: "line",
		words: "The call failed in its first seconds, while the two machines listen for each other's fax tones.",
		advice: ["check-caller", "line"],
	},
	{
		raw: "No answer (T.30 T1 timeout)",
		codes: [218],
		source: CLASS2,
		endedBy: "receiver-timeout",
		words: "No fax machine answered our receiver's greeting before its time limit ran out.",
		advice: ["check-caller"],
	},
	{
		raw: "Unspecified Receive Phase B error",
		codes: [245],
		source: CLASS2,
		endedBy: "line",
		words:
			"The call failed while the two machines were agreeing how to send, for a reason our modem did not give.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "RSPREC error/got DCN",
		codes: [246],
		source: CLASS2,
		endedBy: "sender",
		words:
			"Your fax machine gave up and ended the call while the two machines were still agreeing how to send.",
		advice: ["sender-report"],
	},
	{
		raw: "COMREC error",
		codes: [247],
		source: CLASS2,
		endedBy: "line",
		words:
			"Our receiver could not make out a signal your machine sent while the two were agreeing how to send.",
		advice: ["line"],
	},
	{
		raw: "T.30 T2 timeout, expected page not received",
		codes: [248],
		source: CLASS2,
		endedBy: "receiver-timeout",
		words: "Our receiver waited for your machine's page, and it did not come in time.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "T.30 T1 timeout after EOM received",
		codes: [249],
		source: CLASS2,
		endedBy: "receiver-timeout",
		words: "Your machine said another document would follow, then did not start it in time.",
		advice: ["sender-report", "line"],
	},
	{
		raw: "Unspecified Phase C error, including too much delay between TCF and +FDR command",
		codes: [250],
		source: CLASS2,
		endedBy: "line",
		words: "The page data failed to come through, for a reason our modem did not give.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "Missing EOL after 5 seconds (section 3.2/T.4)",
		codes: [251],
		source: CLASS2,
		endedBy: "line",
		words: MISSING_EOL,
		advice: ["ecm-on", "lower-speed", "line"],
	},
	{
		raw: "DCE to DTE buffer overflow",
		codes: [252],
		source: CLASS2,
		endedBy: "receiver-system",
		words: "Our receiver's computer did not take the page data from its modem fast enough, so data was lost.",
		advice: ["try-again"],
	},
	{
		raw: "Bad CRC or frame (ECM or BFT modes)",
		codes: [253],
		source: CLASS2,
		endedBy: "line",
		words: "Page data sent with error correction (ECM) arrived damaged beyond repair.",
		advice: ["lower-speed", "line"],
	},
	{
		raw: "Unspecified Phase D error",
		codes: [254],
		source: CLASS2,
		endedBy: "line",
		words: "The call failed in the exchange that follows a page, for a reason our modem did not give.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "Unable to continue after PIN or PIP, no PRI-Q",
		codes: [257],
		source: CLASS2,
		endedBy: "sender",
		words: "The two machines tried to hand the call over to a person, and could not go on from there.",
		advice: ["sender-report"],
	},
	{
		raw: "Command or signal 10 sec. timeout",
		codes: [258],
		source: CLASS2,
		endedBy: "receiver-timeout",
		words: "Our receiver waited 10 seconds for your machine's next signal, and nothing came.",
		advice: ["line", "sender-report"],
	},
	{
		raw: "+FK aborted or <CAN> aborted",
		codes: [262],
		source: CLASS2,
		endedBy: "receiver-system",
		words: "Our receiver's software told its modem to stop the call.",
		advice: ["try-again"],
	},
	{
		raw: "After +FDR, DCE waited more than 30 seconds for XON from DTE after XOFF from DTE",
		codes: [265],
		source: CLASS2,
		endedBy: "receiver-system",
		words: "Our receiver's computer stopped taking page data from its modem for more than 30 seconds.",
		advice: ["try-again"],
	},
];

/** Every receive-side reason of HylaFAX 6.0.7, each string once. */
export const HYLAFAX_REASONS: readonly HylafaxReason[] = [
	...CLASS1_REASONS,
	...SERVER_REASONS,
	...CLASS2_REASONS,
];

/** The entry for a reason as HylaFAX gave it: the same string, or a formatted one's pattern; null when unknown. */
export function reasonOf(raw: string): HylafaxReason | null {
	const text = raw.trim();
	return (
		HYLAFAX_REASONS.find((reason) => reason.raw === text) ??
		HYLAFAX_REASONS.find((reason) => reason.pattern?.test(text)) ??
		null
	);
}
