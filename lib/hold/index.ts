// List requests with `wait`, held until their answer changes or their time limit.
export {
	HeldLists,
	type HoldableRequest,
	type HoldLimits,
	KEEP_OPEN_MARGIN_SECONDS,
	type ListWait,
	SPREAD,
} from "./held-lists.ts";
