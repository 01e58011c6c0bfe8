/**
 * The webhooks' face (src/kernel/capability.ts): the endpoints' secrets sealed again under
 * the current key, and the dispatcher (the relay of the event outbox and the delivery
 * workers) started with the webhook settings of the configuration (docs/configuration.md,
 * WEBHOOK_*).
 */
import type { StartContext, Started } from '../kernel/capability.js';
import { startDispatcher } from './dispatcher.js';
import { resealEndpointSecrets, webhookSecretKeys } from './secrets.js';

/** Pause between relay rounds when the outbox is empty (ms). */
const RELAY_INTERVAL_MS = 500;

/**
 * Starts the webhooks of an instance: secrets sealed under an older key are sealed again
 * under the current one (those under a key version no longer configured are logged, their
 * deliveries fail), then the dispatcher starts. `stop` ends the relay loop; `keys` holds the
 * webhook secrets' key family (WEBHOOK_SECRET_KEY, docs/configuration.md).
 */
export async function start({ db, jobs, config, log, outages }: StartContext): Promise<Started> {
  const secretKeys = await webhookSecretKeys(db, config);
  const resealed = await resealEndpointSecrets(db, secretKeys);
  if (resealed.resealed) log.info({ resealed: resealed.resealed }, 'webhook endpoint secrets sealed again under the current webhook secret key');
  if (resealed.unreadable) log.warn({ unreadable: resealed.unreadable }, 'webhook endpoint secrets under a key version not configured: their deliveries fail');
  const dispatcher = await startDispatcher({
    db,
    jobs,
    log,
    outages,
    policy: { sandbox: config.sandbox },
    timeoutMs: config.webhookTimeoutMs,
    retryScale: config.webhookRetryScale,
    secretKeys,
    concurrency: config.webhookConcurrency,
    disableFailingAfterMs: config.webhookDisableFailingAfterHours * 3_600_000,
    relayIntervalMs: RELAY_INTERVAL_MS,
  });
  return { stop: () => dispatcher.stop(), keys: { webhookSecrets: secretKeys } };
}

// What the handlers and the capabilities above call (the face is the only door: .dependency-cruiser.cjs).
export { ATTEMPT_CSV_COLUMNS, listDeliveryAttempts } from './attempts.js';
export { listEndpointHealth } from './healthReport.js';
export { DEFAULT_PREVIOUS_SECRET_SECONDS, createWebhookEndpoint, deleteWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, rotateWebhookEndpointSecret, sendWebhookTestEvent, updateWebhookEndpoint } from './endpoints.js';
export { EVENT_CSV_COLUMNS, listEvents, redeliverEvent } from './events.js';
export { searchEvents } from './eventSearch.js';
export { recoverDeliveries } from './recovery.js';
