/**
 * The face of the audit log and the API request log (src/kernel/capability.ts). Its start runs
 * their purges (AUDIT_RETENTION_DAYS; API_REQUEST_LOG_DAYS and API_REQUEST_LOG_MAX_ROWS;
 * docs/configuration.md): once soon after the start, then hourly.
 */
import type { StartContext, Started } from '../kernel/capability.js';
import { purgeAuditEvents } from './audit.js';
import { purgeApiRequests } from './requestLogReads.js';

/** How often the purge runs (ms): retention is counted in days, so an hour late is nothing. */
const PURGE_INTERVAL_MS = 3_600_000;
/** The first purge's delay after the start (ms): after the start's own work. */
const FIRST_PURGE_MS = 60_000;

/** Starts the hourly purges of audit events and API requests past their bounds; `stop` ends it (and waits for a purge under way). */
export async function start({ db, config, log, outages }: StartContext): Promise<Started> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const attempt = async (what: string, work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (err) {
      if (!outages.noteBackground(err)) log.warn({ err }, `${what} purge failed; it runs again within the hour`);
    }
  };
  const purge = async (): Promise<void> => {
    await attempt('audit', async () => {
      const deleted = await purgeAuditEvents(db, config.auditRetentionDays);
      if (deleted) log.info({ deleted, retention_days: config.auditRetentionDays }, 'audit events past their retention deleted');
    });
    await attempt('request log', async () => {
      const deleted = await purgeApiRequests(db, config.apiRequestLogDays, config.apiRequestLogMaxRows);
      if (deleted) log.info({ deleted, days: config.apiRequestLogDays, max_rows: config.apiRequestLogMaxRows }, "API requests past the request log's bounds deleted");
    });
  };
  const schedule = (ms: number): void => {
    timer = setTimeout(() => {
      running = purge().then(() => {
        if (!stopped) schedule(PURGE_INTERVAL_MS);
      });
    }, ms);
    timer.unref();
  };
  schedule(FIRST_PURGE_MS);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

// What the HTTP layer and the handlers call (the face is the only door: .dependency-cruiser.cjs).
export { AUDIT_CSV_COLUMNS, AuditRecorder, listAuditEvents, purgeAuditEvents, type AuditEntry, type AuditEventFilter, type AuditSubject } from './audit.js';
export { ApiRequestLog, BODY_CAP_BYTES, type ApiRequestEntry } from './requestLog.js';
export { getApiRequest, listApiRequests, purgeApiRequests, type ApiRequestFilter } from './requestLogReads.js';
