// The newest faxes in memory with their JSON texts, kept fresh from SQLite.
export { type FaxChange, type FaxLookup, RecentFaxes, type RecentFaxesOptions } from "./recent-faxes.ts";
