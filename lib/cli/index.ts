// The operator commands behind `fax <command>`: the write side of the service.
import { importCommand } from "./commands/import.ts";
import { ingestCommand } from "./commands/ingest.ts";
import { purgeCommand } from "./commands/purge.ts";
import { removeCommand } from "./commands/remove.ts";
import { waitCommand } from "./commands/wait.ts";

export { type CommandIO, EXIT } from "./command.ts";
export { runCli } from "./run-cli.ts";

/** Every command, in the order `fax --help` lists them. */
export const COMMANDS = [importCommand, ingestCommand, removeCommand, purgeCommand, waitCommand];
