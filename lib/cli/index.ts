// The operator commands behind `fax <command>`: the write side of the service.
import type { Command } from "./command.ts";

export { type CommandIO, EXIT } from "./command.ts";
export { runCli } from "./run-cli.ts";

/** Every command, in the order `fax --help` lists them, each loaded only when asked for. */
const LOADERS: Record<string, () => Promise<Command>> = {
	import: async () => (await import("./commands/import.ts")).importCommand,
	ingest: async () => (await import("./commands/ingest.ts")).ingestCommand,
	"receive-mail": async () => (await import("./commands/receive-mail.ts")).receiveMailCommand,
	"receive-hylafax": async () => (await import("./commands/receive-hylafax.ts")).receiveHylafaxCommand,
	remove: async () => (await import("./commands/remove.ts")).removeCommand,
	purge: async () => (await import("./commands/purge.ts")).purgeCommand,
	backup: async () => (await import("./commands/backup.ts")).backupCommand,
	"restore-files": async () => (await import("./commands/restore-files.ts")).restoreFilesCommand,
	"copy-database": async () => (await import("./commands/copy-database.ts")).copyDatabaseCommand,
	wait: async () => (await import("./commands/wait.ts")).waitCommand,
	check: async () => (await import("./commands/check.ts")).checkCommand,
	reprocess: async () => (await import("./commands/reprocess.ts")).reprocessCommand,
	"follow-call": async () => (await import("./commands/follow-call.ts")).followCallCommand,
	"watch-mail": async () => (await import("./commands/watch-mail.ts")).watchMailCommand,
};

/**
 * The command `name` alone when there is one of that name, otherwise all of
 * them (for the overview). Loading every command's modules would double the
 * start-up time of `fax ingest`, which a waiting client sees.
 */
export async function loadCommands(name: string | undefined): Promise<Command[]> {
	const loader = name !== undefined && Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
	if (loader) return [await loader()];
	return Promise.all(Object.values(LOADERS).map((load) => load()));
}
