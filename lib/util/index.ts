// Small helpers every layer may use; they depend on nothing of this project.
export { errorMessage } from "./error-message.ts";
export { plural } from "./plural.ts";
export {
	makeSharedDir,
	makeSharedDirSync,
	SHARED_DIR_MODE,
	SHARED_FILE_MODE,
	shareFile,
	shareFileSync,
} from "./shared-files.ts";
export { realTimer, type SetTimer } from "./timer.ts";
export { completeTracingChannel } from "./tracing-channel.ts";
