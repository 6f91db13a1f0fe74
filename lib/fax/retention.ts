/** Every test is public for 30 days; older faxes answer 410 even before the purge ran. */
const RETENTION_SECONDS = 30 * 86_400;

/** The oldest `received_at` (Unix seconds) still public at `nowSeconds`. */
export function retentionCutoff(nowSeconds: number): number {
	return nowSeconds - RETENTION_SECONDS;
}
