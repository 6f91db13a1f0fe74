import packageJson from "../../package.json" with { type: "json" };

/** The waiting client's own User-Agent (spec part 7): never a library default. */
export const WAIT_USER_AGENT = `testfax-wait/${packageJson.version}`;
