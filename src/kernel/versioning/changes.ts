/**
 * The shipped version changes, oldest first: each breaking change made to the documents and
 * the handlers, as a module that undoes it for the versions before it (./versionChange.ts).
 * Each description is the changelog's migration note for integrators (what changed, what to
 * do); `npm run api:diff` checks that each names every operation and event its document
 * change reaches. v1, v2 and v3 have the same shapes; v4 fixes what integrators trip on
 * while v1 (the seed's shapes) stays the default.
 */
import type { OpenApiDocument, VersionChange } from './versionChange.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `object` with key `from` renamed `to`, in place in the key order (a copy; other values as they are). */
function renameKey<T>(object: T, from: string, to: string): T {
  if (!object || typeof object !== 'object' || Array.isArray(object) || !(from in object)) return object;
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k === from ? to : k, v])) as T;
}

/** `node` with `rewrite` applied to every value inside it, depth first (arrays and objects rebuilt). */
function walk(node: unknown, rewrite: (value: unknown, key: string | undefined) => unknown, key?: string): unknown {
  const inner = Array.isArray(node)
    ? node.map((v) => walk(v, rewrite))
    : node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, rewrite, k)]))
      : node;
  return rewrite(inner, key);
}

/** A schema (in place) with property `from` named `to`, in `properties` and `required`. */
function renameProperty(schema: Doc | undefined, from: string, to: string): void {
  if (!schema?.properties) return;
  schema.properties = renameKey(schema.properties, from, to);
  if (Array.isArray(schema.required)) schema.required = schema.required.map((k: string) => (k === from ? to : k));
}

/**
 * `v4` itself. The documents before it do not name it (the `ApiVersion` enum, the lists of
 * versions in descriptions and examples), and a client of v1 to v3 never receives it: a
 * business or webhook endpoint set to `v4` shows the newest version that client's document
 * names, and the gateway descriptor lists the versions up to it.
 */
const API_VERSION_V4: VersionChange = {
  version: 'v4',
  name: 'api-version-v4',
  description:
    'The version `v4` itself. A request of v1 to v3 never sees it: a business or a webhook endpoint set to `v4` shows `v3` there (the newest version those documents name), and the gateway descriptor lists the versions up to v3. Send `X-API-Version: v4` to read it as it is.',
  operations: [
    'getGatewayDescriptor',
    'createBusiness',
    'createCoreBusiness',
    'listBusinesses',
    'getBusiness',
    'updateBusiness',
    'createWebhookEndpoint',
    'listWebhookEndpoints',
    'listWebhookEndpointHealth',
    'getWebhookEndpoint',
    'updateWebhookEndpoint',
    'deleteWebhookEndpoint',
  ],
  // Their envelope's `api_version` is the receiving endpoint's own version: never newer than its document.
  events: ['onboarding.complete', 'topup.complete', 'payout.pending', 'payout.processing', 'payout.failed', 'payout.completed', 'webhook.test'],
  document: (doc) =>
    walk(doc, (value, key) => {
      if (typeof value === 'string') return value.replaceAll('`v3`, `v4`', '`v3`').replaceAll('v3, v4', 'v3');
      if (Array.isArray(value) && value.includes('v1') && value.includes('v4')) return value.filter((v) => v !== 'v4');
      if (key === 'api_version' && value === 'v4') return 'v3';
      return value;
    }) as OpenApiDocument,
  response: (body) =>
    walk(body, (value, key) => {
      if (key === 'api_version' && value === 'v4') return 'v3';
      if (key === 'supported' && Array.isArray(value)) return value.filter((v) => v !== 'v4');
      return value;
    }),
};

/** createWebhookEndpoint's answer before v4 (seed E3): 200 with an empty object; its description then. */
const E3_DESCRIPTION =
  "**Preview.** Registers an address to receive the given event codes, signed with `secret` per the Standard Webhooks scheme (the Webhooks tag describes deliveries, retries and the URL rules). The endpoint is `ENABLED` at once: every later event of its codes is delivered to it. The response is an empty JSON object (seed E3); the endpoint's id is in `listWebhookEndpoints` and in every delivery's `webhook_id`, and `Location` is its address. A URL the service may not call is 400 `WEBHOOK_URL_NOT_ALLOWED`.";

/** createWebhookEndpoint answers 201 with the endpoint from v4; seed E3's `200 {}` before. */
const WEBHOOK_ENDPOINT_CREATED: VersionChange = {
  version: 'v4',
  name: 'webhook-endpoint-created',
  description:
    '`createWebhookEndpoint` answers 201 with the endpoint (`id`, `url`, `events`, `status`, `api_version`, …) and its `Location`, instead of 200 with an empty object (seed E3): no need to list the endpoints to learn the new id, racing other registrations. What to do: expect 201 and read the endpoint from the response.',
  operations: ['createWebhookEndpoint'],
  document(doc) {
    const d = doc as Doc;
    const op = d.paths?.['/webhooks/endpoints']?.post;
    if (!op?.responses?.['201']) return doc;
    const { '201': created, ...others } = op.responses;
    op.responses = {
      '200': {
        description: 'The endpoint was stored, `ENABLED`.',
        headers: created.headers,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/EmptyObject' }, example: {} } },
      },
      ...others,
    };
    op.description = E3_DESCRIPTION;
    d.components.schemas.EmptyObject ??= { type: 'object', description: 'An empty JSON object.', additionalProperties: false, properties: {} };
    return doc;
  },
  status: (status) => (status === 201 ? 200 : status),
  response: () => ({}),
};

/** The core document's idempotency header parameters, named `idempotency-key` before v4. */
const CORE_KEY_PARAMETERS = ['PayoutIdempotencyKey', 'BulkPayoutIdempotencyKey', 'CardIdempotencyKey'];

/** One name for the idempotency header across both documents. */
const IDEMPOTENCY_KEY_HEADER: VersionChange = {
  version: 'v4',
  name: 'idempotency-key-header',
  description:
    'The core document names the idempotency header `Idempotency-Key`, as the closed-loop document does (it was `idempotency-key` on `createPayout`, `createBulkPayout` and `issueCard`): a client generated from both documents has one header parameter, not two. Header names have no case on the wire, so requests do not change; a generated client renames the parameter.',
  document(doc) {
    const parameters = (doc as Doc).components?.parameters ?? {};
    for (const name of CORE_KEY_PARAMETERS) if (parameters[name]?.name === 'Idempotency-Key') parameters[name].name = 'idempotency-key';
    return doc;
  },
};

/** The core operationIds that v4 renames, newest → before: each named the same as a closed-loop operation. */
const CORE_OPERATION_IDS: Record<string, string> = {
  createCoreToken: 'createToken',
  createCoreBusiness: 'createBusiness',
  createCustomerPayout: 'createPayout',
  listCustomerWallets: 'listWallets',
  getCustomerWallet: 'getWallet',
  getCustomerWalletBalance: 'getWalletBalance',
  listCustomerWalletTransactions: 'listWalletTransactions',
};

/** Distinct operationIds across the two documents. */
const DISTINCT_OPERATION_IDS: VersionChange = {
  version: 'v4',
  name: 'distinct-operation-ids',
  description: `Every operation has an operationId of its own across both documents, so an SDK generated from the two together has no collision. Renamed in the core document: ${Object.entries(CORE_OPERATION_IDS)
    .map(([now, before]) => `\`${before}\` → \`${now}\``)
    .join(', ')}. The paths and bodies do not change; a generated client renames these methods.`,
  operationIds: CORE_OPERATION_IDS,
  document: (doc) =>
    walk(doc, (value, key) => {
      if (key === 'operationId' && typeof value === 'string' && value in CORE_OPERATION_IDS) return CORE_OPERATION_IDS[value];
      if (typeof value === 'string' && value.includes('`create')) return value.replaceAll('`createCustomerPayout`', '`createPayout`');
      return value;
    }) as OpenApiDocument,
};

/** A payout's receiver fields, v4's name → before. */
const RECEIVER_FIELDS: Record<string, string> = { wallet_account_number: 'walletAccountNumber', mobile_number: 'mobileNumber' };

/** The payout body's receiver in snake_case. */
const PAYOUT_RECEIVER_SNAKE_CASE: VersionChange = {
  version: 'v4',
  name: 'payout-receiver-snake-case',
  description:
    "`createCustomerPayout`'s body names its receiver in snake_case, as all its other fields are: `wallet_account_number` and `mobile_number` (were `walletAccountNumber` and `mobileNumber`). What to do: rename the two fields.",
  operations: ['createCustomerPayout'],
  document(doc) {
    const d = doc as Doc;
    const schema = d.components?.schemas?.PayoutCreateRequest;
    if (!schema) return doc;
    for (const [now, before] of Object.entries(RECEIVER_FIELDS)) renameProperty(schema, now, before);
    schema.description = "Seed E4's body. Exactly one of `customer_id`, `walletAccountNumber` and `mobileNumber`.";
    const op = d.paths?.['/payouts/']?.post;
    for (const example of Object.values((op?.requestBody?.content?.['application/json']?.examples ?? {}) as Record<string, Doc>)) {
      for (const [now, before] of Object.entries(RECEIVER_FIELDS)) example.value = renameKey(example.value, now, before);
    }
    if (typeof op?.description === 'string') op.description = op.description.replace('`wallet_account_number` and\n`mobile_number`', '`walletAccountNumber` and\n`mobileNumber`').replace('`wallet_account_number` and `mobile_number`', '`walletAccountNumber` and `mobileNumber`');
    return doc;
  },
  request: (body) => Object.entries(RECEIVER_FIELDS).reduce((b, [now, before]) => renameKey(b, before, now), body),
};

/** `topup.complete`'s time is `occurred_at`, as the payout events' is. */
const TOPUP_OCCURRED_AT: VersionChange = {
  version: 'v4',
  name: 'topup-occurred-at',
  description:
    "`topup.complete`'s time is `occurred_at`, as every payout event's is (was `completed_at`). Events are rendered at each endpoint's version, and at the request's in `listEvents`, whenever they were recorded. What to do: read `occurred_at`.",
  operations: ['listEvents', 'listSandboxOutboxEvents'],
  events: ['topup.complete'],
  document(doc) {
    const d = doc as Doc;
    const data = d.components?.schemas?.TopupCompleteData;
    if (data) {
      renameProperty(data, 'occurred_at', 'completed_at');
      delete data.properties.completed_at.description;
    }
    // Examples of recorded events: a topup's `data` as v1 to v3 show it.
    return walk(d, (value) => {
      const event = value as Doc;
      return event && typeof event === 'object' && event.code === 'topup.complete' && event.data?.occurred_at ? { ...event, data: renameKey(event.data, 'occurred_at', 'completed_at') } : value;
    }) as OpenApiDocument;
  },
  webhook: (data) => renameKey(data, 'occurred_at', 'completed_at'),
  webhookUp: (data) => renameKey(data, 'completed_at', 'occurred_at'),
};

export const VERSION_CHANGES: readonly VersionChange[] = [
  API_VERSION_V4,
  WEBHOOK_ENDPOINT_CREATED,
  IDEMPOTENCY_KEY_HEADER,
  DISTINCT_OPERATION_IDS,
  PAYOUT_RECEIVER_SNAKE_CASE,
  TOPUP_OCCURRED_AT,
];
