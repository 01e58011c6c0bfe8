/**
 * Who owns each table of the service's schema, and the floors of src/'s rooms (docs/glossary.md,
 * "Table owner"). A table's owner is the one room whose code creates its rows and whose
 * functions are the door to it: only the owner writes the table; another room reads it only
 * when the owner is on a lower floor than the reader (a room's own tables and the tables below
 * it are what it stands on), and otherwise asks the owner. The floors are the layering of
 * `.dependency-cruiser.cjs`: a room imports only from its own floor or below.
 *
 * test/platform/database/tableOwnership.test.ts checks that every table of the migrated schema
 * has an owner here, and scans src/ for the rows each room touches (Knex builders, raw SQL,
 * the `src/*\/sql/*.sql` functions) against this rule; the touches the rule does not allow yet
 * are listed there (KNOWN_SIDEWAYS), each with the change that removes it.
 */

/** A room of src/: a folder directly under src/ (src/'s top-level files are the assembly, no room). */
export type Room =
  | 'handlers'
  | 'http'
  | 'portal'
  | 'docs'
  | 'businesses'
  | 'customers'
  | 'payouts'
  | 'cards'
  | 'webhooks'
  | 'ledger'
  | 'providers'
  | 'events'
  | 'audit'
  | 'kernel'
  | 'jobs'
  | 'db';

/**
 * Each room's floor: higher is above. A room may import, and read the tables of, its own room
 * and the rooms of lower floors; rooms on one floor are side by side (neither reads the
 * other's tables).
 *
 * - 7: handlers, http, and the service's pages (portal, docs), the top: handlers and the
 *   pages import http, nothing imports any of them but the assembly (src/server.ts);
 * - 6: the capabilities that serve a customer or a business: payouts, cards and webhooks,
 *   side by side (none imports another);
 * - 5: the parties they serve, businesses and customers, side by side: payouts and cards
 *   find a customer through the customers' face (src/customers/contact.ts and
 *   customer_by_identifier), and payouts and webhooks read a business's settings;
 * - 4: ledger and providers (they import events, the kernel and db, no capability);
 * - 3: events, the event outbox (it imports the kernel and db, neither the ledger nor the
 *   providers: the ledger records its events through it), and beside it audit, the audit log
 *   (the HTTP edge records every room's requests in it);
 * - 2: kernel (it imports neither events, the ledger nor the providers, and does import
 *   jobs: the JobQueue type of src/kernel/services.ts);
 * - 1: jobs (pg-boss; it imports db alone);
 * - 0: db.
 */
export const ROOM_FLOORS: Readonly<Record<Room, number>> = {
  handlers: 7,
  http: 7,
  payouts: 6,
  cards: 6,
  webhooks: 6,
  businesses: 5,
  customers: 5,
  ledger: 4,
  providers: 4,
  events: 3,
  audit: 3,
  portal: 7,
  docs: 7,
  kernel: 2,
  jobs: 1,
  db: 0,
};

/**
 * The owner of every table of the service's schema (the current schema; pg-boss keeps its own
 * tables in its own schema, which no room's SQL names unqualified), with the reason where the
 * owner is not plain from the table's name.
 */
export const TABLE_OWNERS: Readonly<Record<string, Room>> = {
  // db: the schema's own machinery.
  knex_migrations: 'db', // the migrator's record of the schema's version (knex)
  knex_migrations_lock: 'db', // the migrator's lock (knex)
  sql_definitions: 'db', // the applier's record of the src/*/sql/*.sql files (src/db/sqlFunctions.ts)

  // jobs
  job_outbox: 'jobs', // jobs a transaction enqueues, handed to pg-boss after its commit (src/jobs/outbox.ts)

  // kernel
  settings: 'kernel', // the service's secrets and keys (src/kernel/secrets/settings.ts), read by every room through it
  idempotency_keys: 'kernel', // the Idempotency-Key bracket's functions are src/kernel/sql/idempotency_*.sql
  otp_operations: 'kernel', // the one OTP engine (src/kernel/otp/otp.ts) that onboarding, number change and card steps share
  sandbox_clocks: 'kernel', // the business clock (src/kernel/clock.ts), read by every time-based rule

  // events
  outbox_events: 'events', // the event outbox: written by event_emit (src/events/sql/event_emit.sql) and emitEvent (src/events/outbox.ts)
  outbox_pending: 'events', // written by the event outbox's trigger (src/events/sql/outbox_event_pending.sql), taken by takePendingEvents

  // audit
  audit_events: 'audit', // written by the HTTP edge through src/audit/audit.ts, deleted only by its retention purge
  api_requests: 'audit', // the API request log, written off the critical path by src/audit/requestLog.ts

  // providers
  provider_callback_events: 'providers', // replay protection of signed provider callbacks (src/providers/callbackEvents.ts)
  sandbox_sms_messages: 'providers', // the sandbox SMS provider's handset (src/providers/sms.ts)
  sandbox_provider_outages: 'providers', // the sandbox providers' simulated outages (src/providers/outages.ts)

  // ledger
  accounts: 'ledger', // created by src/ledger/accounts.ts, balances moved only by the ledger's SQL; wallets are accounts
  account_numbers: 'ledger', // the account-number directory, written with each account (src/ledger/accounts.ts)
  transactions: 'ledger',
  ledger_entries: 'ledger',

  // businesses
  businesses: 'businesses',
  api_clients: 'businesses', // a business's API clients (src/businesses/clients.ts)
  labels: 'businesses', // the labels a business gives its wallets (src/businesses/labels.ts, src/businesses/wallets.ts)
  // A business's people are a part of the business: its portal users and their sessions
  // (src/businesses/users.ts, src/businesses/sessions.ts) stay in its room, behind its face.
  portal_users: 'businesses',
  portal_user_emails: 'businesses', // the users' email directory, written with each invitation
  portal_sessions: 'businesses',
  sandbox_user_invitations: 'businesses', // the sandbox's invitation messages, read by a test helper

  // customers
  customers: 'customers',
  onboarding_sessions: 'customers',
  mobile_number_change_sessions: 'customers',
  provider_requests: 'customers', // what the customer flows asked the identity and screening providers (src/customers/providerRequests.ts)

  // payouts
  payouts: 'payouts',
  payout_settings: 'payouts',
  payout_whitelist_entries: 'payouts',
  bulk_payouts: 'payouts',
  bulk_payout_items: 'payouts',
  payout_approvals: 'payouts',

  // cards
  cards: 'cards',
  card_issuances: 'cards',
  card_otp_sessions: 'cards',
  card_tokens: 'cards', // the card-token directory, written with each card (src/cards/cards.ts)
  card_pans: 'cards', // the PAN directory, written with each card (src/cards/cards.ts)
  tokenization_activation_requests: 'cards', // the sandbox's card tokenization (src/cards/tokenization.ts)

  // webhooks
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_delivery_attempts: 'webhooks',

  // http
  rate_limits: 'http', // the rate limiter's counters (src/http/rateLimit.ts, through rate-limiter-flexible)
};
