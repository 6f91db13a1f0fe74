import packageJson from "../../package.json" with { type: "json" };

/** The waiting client's own User-Agent (docs/API.md "Basics"): never a library default. */
export const WAIT_USER_AGENT = `testfax-wait/${packageJson.version}`;
