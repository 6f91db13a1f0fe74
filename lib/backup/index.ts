// Backups of the whole state (the database, which holds every fax's files'
// bytes since schema version 5) and the way back from one.

export { restoreFiles } from "./restore-files.ts";
export { BACKUP_DATABASE_NAME, writeBackup } from "./write-backup.ts";
