// List requests with `wait`, held until their answer changes or their time limit.
export { HeldLists, type HoldableRequest, type HoldLimits, type ListWait } from "./held-lists.ts";
