// Fax files on disk and the retention purge.
export {
	deleteFaxFiles,
	deleteStrayFiles,
	faxFilePaths,
	STRAY_FILE_AGE_SECONDS,
	writeFaxFiles,
} from "./fax-files.ts";
export { archiveFaxFiles } from "./file-archive.ts";
export { purgeExpired } from "./purge.ts";
export { schedulePurge } from "./purge-schedule.ts";
export { DATABASE_CHUNK_BYTES, servedFaxFile } from "./served-file.ts";
