/**
 * One sealing, a key family per purpose (src/kernel/secrets/sealing.ts): each family's keys
 * open only the values it sealed, so no key named for cards seals anything else; what the
 * service seals at rest names its family; a kept answer sealed under the card data keys, as
 * before kept answers had a family, still replays; and the keys are derived at start, never
 * in a handler.
 */
import { createCipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { cardKeys } from '../../../src/cards/keys.js';
import { nationalIdKeys } from '../../../src/customers/identityData.js';
import { replayKeys } from '../../../src/kernel/idempotency/idempotency.js';
import { loadConfig } from '../../../src/config.js';
import { keyFamilies, openValue, sealValue } from '../../../src/kernel/secrets/sealing.js';
import { webhookSecretKeys } from '../../../src/webhooks/secrets.js';
import { issuedCard } from '../../support/cards.js';
import { post } from '../../support/client.js';
import { newBusiness, platformToken, uniq } from '../../support/fixtures.js';
import { running, testConfig } from '../../support/service.js';
import { startReceiver, testSecret } from '../../support/webhooks.js';

const db = () => running().db;

describe('sealing: a key family per purpose', function () {
  this.timeout(60_000);

  it("each family's keys open only the values it sealed", async () => {
    const config = testConfig();
    const families = {
      'card-data': await cardKeys(db(), config),
      'webhook-secret': await webhookSecretKeys(db(), config),
      'national-id': (await nationalIdKeys(db(), config)).seal,
      'idempotency-replay': await replayKeys(db(), config),
    };
    for (const [name, keys] of Object.entries(families)) {
      const sealed = sealValue(keys, 'context', 'clear');
      expect(sealed.sealed.split('.')[0]).to.equal(name);
      expect(openValue(keys, 'context', sealed)).to.equal('clear');
      for (const [other, otherKeys] of Object.entries(families)) {
        if (other === name) continue;
        expect(() => openValue(otherKeys, 'context', sealed), `${name} opened by ${other}`).to.throw(name);
        // Even passed off as the other family's, it does not open under the other's key.
        expect(() => openValue(otherKeys, 'context', { ...sealed, sealed: sealed.sealed.replace(name, other) }), `${name} opened by ${other}'s key`).to.throw();
      }
    }
  });

  it('what the service seals at rest names its family: card data, webhook secrets, national ids, kept answers', async () => {
    const b = await newBusiness();
    const { card, customer } = await issuedCard(b);
    const receiver = await startReceiver();
    try {
      const endpoint = await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.be.oneOf([200, 201]);
    } finally {
      await receiver.close();
    }
    const key = randomUUID();
    const created = await post('/cl/v1/businesses', { name: `Sealed ${uniq()}` }, { token: await platformToken(), idempotencyKey: key });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);

    const cardRow = await db()('cards').where({ id: card.id, business_id: b.id }).first('pan_sealed', 'cvv_sealed');
    for (const sealed of [cardRow.pan_sealed, cardRow.cvv_sealed]) expect(sealed).to.match(/^card-data\./);
    const endpointRow = await db()('webhook_endpoints').where({ business_id: b.id }).first('secret_sealed');
    expect(endpointRow.secret_sealed).to.match(/^webhook-secret\./);
    const customerRow = await db()('customers').where({ id: customer.id, business_id: b.id }).first('national_id_sealed');
    expect(customerRow.national_id_sealed).to.match(/^national-id\./);
    const kept = await db()('idempotency_keys').where({ key }).first('response_body');
    expect(kept.response_body.sealedBody.sealed).to.match(/^idempotency-replay\./);
    expect(created.body.credentials.client_secret).to.be.a('string');
    expect(JSON.stringify(kept.response_body)).not.to.include(created.body.credentials.client_secret);
  });

  it('a kept answer sealed under the card data keys, before kept answers had a family, still replays', async () => {
    const key = randomUUID();
    const token = await platformToken();
    const body = { name: `Kept ${uniq()}` };
    const first = await post('/cl/v1/businesses', body, { token, idempotencyKey: key });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    // The kept body as a release before key families sealed it: under card data key version 1,
    // AES-256-GCM under HMAC-SHA256(CARD_DATA_KEY, "idempotency-replay-seal"), `<iv>.<tag>.<ciphertext>`.
    const row = await db()('idempotency_keys').where({ key }).first('scope', 'response_body');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHmac('sha256', testConfig().cardDataKey!).update('idempotency-replay-seal').digest(), iv);
    cipher.setAAD(Buffer.from(`idempotency:${row.scope}:${key}`));
    const data = Buffer.concat([cipher.update(JSON.stringify(first.body), 'utf8'), cipher.final()]);
    const sealedBody = { sealed: [iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url')).join('.'), keyVersion: 1 };
    await db()('idempotency_keys').where({ key }).update({ response_body: JSON.stringify({ ...row.response_body, sealedBody }) });

    const again = await post('/cl/v1/businesses', body, { token, idempotencyKey: key });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
  });

  it('reads each family as CARD_DATA_KEY is read; IDENTITY_DATA_KEY stands for NATIONAL_ID_KEY when that is unset', () => {
    const config = loadConfig({
      WEBHOOK_SECRET_KEY: 'w',
      WEBHOOK_SECRET_KEY_VERSION: '4',
      WEBHOOK_SECRET_PREVIOUS_KEYS: '2:two,3:three',
      NATIONAL_ID_KEY_VERSION: '2',
      NATIONAL_ID_PREVIOUS_KEYS: '1:one',
      IDEMPOTENCY_REPLAY_KEY: 'r',
      IDENTITY_DATA_KEY: 'identity',
    });
    const families = keyFamilies(config);
    expect(families.webhookSecret).to.deep.equal({ name: 'webhook-secret', key: 'w', version: 4, previousKeys: { 2: 'two', 3: 'three' } });
    expect(families.nationalId).to.deep.equal({ name: 'national-id', key: 'identity', version: 2, previousKeys: { 1: 'one' } });
    expect(families.idempotencyReplay).to.deep.equal({ name: 'idempotency-replay', key: 'r', version: 1, previousKeys: {} });
    expect(keyFamilies(loadConfig({ NATIONAL_ID_KEY: 'national', IDENTITY_DATA_KEY: 'identity' })).nationalId.key).to.equal('national');
    expect(() => loadConfig({ NATIONAL_ID_PREVIOUS_KEYS: 'nope' })).to.throw(/NATIONAL_ID_PREVIOUS_KEYS/);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY_VERSION: '0' })).to.throw(/WEBHOOK_SECRET_KEY_VERSION/);
    const production = { SANDBOX: 'false', PAYOUT_RAIL_URL: 'https://rail.example', PAYOUT_RAIL_CALLBACK_SECRET: 's', CARD_DATA_KEY: 'c', CARD_FINGERPRINT_KEY: 'f' };
    expect(() => loadConfig(production)).to.throw(/^WEBHOOK_SECRET_KEY, IDEMPOTENCY_REPLAY_KEY, TOTP_SECRET_KEY required when SANDBOX=false/);
    expect(loadConfig({ ...production, WEBHOOK_SECRET_KEY: 'w', IDEMPOTENCY_REPLAY_KEY: 'r', TOTP_SECRET_KEY: 't' }).sandbox).to.equal(false);
  });

  it('no handler derives a key: each capability derives its keys once, at start (Services.keys)', () => {
    const root = path.resolve('src/handlers');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).to.be.greaterThan(10);
    const derivations = /\b(cardKeys|webhookSecretKeys|nationalIdKeys|identityKeys|otpKeys|replayKeys|keptSecret|familyKeys|familySecrets|sealingKeys)\s*\(|kernel\/secrets\//;
    const offenders = files.filter((f) => derivations.test(readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).to.deep.equal([]);
  });
});
