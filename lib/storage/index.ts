// Fax files on disk and the retention purge.
export { deleteFaxFiles, faxFilePaths, writeFaxFiles } from "./fax-files.ts";
export { purgeExpired } from "./purge.ts";
export { schedulePurge } from "./purge-schedule.ts";
