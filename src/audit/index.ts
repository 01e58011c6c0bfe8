/**
 * The audit log's face (src/kernel/capability.ts). Its start runs the retention purge
 * (AUDIT_RETENTION_DAYS, docs/configuration.md): once soon after the start, then hourly.
 */
import type { StartContext, Started } from '../kernel/capability.js';
import { purgeAuditEvents } from './audit.js';

/** How often the purge runs (ms): retention is counted in days, so an hour late is nothing. */
const PURGE_INTERVAL_MS = 3_600_000;
/** The first purge's delay after the start (ms): after the start's own work. */
const FIRST_PURGE_MS = 60_000;

/** Starts the hourly purge of audit events older than the configured retention; `stop` ends it (and waits for a purge under way). */
export async function start({ db, config, log, outages }: StartContext): Promise<Started> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const purge = async (): Promise<void> => {
    try {
      const deleted = await purgeAuditEvents(db, config.auditRetentionDays);
      if (deleted) log.info({ deleted, retention_days: config.auditRetentionDays }, 'audit events past their retention deleted');
    } catch (err) {
      if (!outages.noteBackground(err)) log.warn({ err }, 'audit purge failed; it runs again within the hour');
    }
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
export { AUDIT_CSV_ROWS, AuditRecorder, auditEventsCsv, listAuditEvents, purgeAuditEvents, type AuditEntry, type AuditEventFilter, type AuditSubject } from './audit.js';
