/**
 * National ids at rest across a rotation of their key family (src/customers/identityData.ts):
 * a national id sealed in the format of before key versions (under IDENTITY_DATA_KEY) and one
 * sealed under national-id key version 1 are both re-sealed under version 2 when a service
 * configured with NATIONAL_ID_KEY version 2 starts; the customers are still found by
 * national id (the lookup hash does not rotate) and their national id still reaches the
 * provider (the login screen's change opens it); a new one is sealed under version 2. On a
 * database of its own, so that the rotated key never reaches the main service's customers.
 */
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { nationalIdKeys, openNationalId } from '../../src/customers/identityData.js';
import type { RunningService } from '../../src/server.js';
import { post } from '../support/client.js';
import { activeCustomer, newMobileNumber, newNationalId } from '../support/customers.js';
import { tokenFor, type Caller } from '../support/fixtures.js';
import { ownDatabaseServices, testConfig } from '../support/service.js';

const IDENTITY_DATA_KEY = testConfig().identityDataKey!;
const ROTATED = { nationalIdKey: 'rotated-national-id-key-rotated-national-id-key', nationalIdKeyVersion: 2, nationalIdPreviousKeys: { 1: IDENTITY_DATA_KEY } };

/** A national id sealed as before key versions: `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM under HMAC-SHA256(IDENTITY_DATA_KEY, "national-id-seal-v1"), no additional data. */
function sealedAsBefore(nationalId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHmac('sha256', IDENTITY_DATA_KEY).update('national-id-seal-v1').digest(), iv);
  const data = Buffer.concat([cipher.update(nationalId, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
}

describe('national ids sealed under a rotating key family', function () {
  this.timeout(120_000);
  const { start, stop } = ownDatabaseServices('wallet_national_ids');
  const callerOf = async (s: RunningService): Promise<Caller> => ({ token: await tokenFor('demo-business', 'demo-business-secret', s.url), baseUrl: s.url });
  const rowOf = (s: RunningService, id: string) => s.db('customers').where({ id }).first('id', 'national_id_sealed', 'national_id_key_version', 'national_id_hash');

  it('re-seals national ids of the old format and of an older version under the current key at start; they are still found and opened', async () => {
    const first = await start();
    const before = await callerOf(first);
    const oldId = newNationalId();
    const versionOneId = newNationalId();
    const old = await activeCustomer(before, {}, oldId);
    const versionOne = await activeCustomer(before, {}, versionOneId);
    expect(await rowOf(first, versionOne.id)).to.include({ national_id_key_version: 1 }).and.have.property('national_id_sealed').that.match(/^national-id\./);
    // The first customer's national id as a release before key versions left it.
    await first.db('customers').where({ id: old.id }).update({ national_id_sealed: sealedAsBefore(oldId), national_id_key_version: null });
    const hashes = { old: (await rowOf(first, old.id)).national_id_hash, versionOne: (await rowOf(first, versionOne.id)).national_id_hash };
    await stop(first);

    // NATIONAL_ID_KEY version 2, version 1 (here IDENTITY_DATA_KEY, its old name) still readable.
    const rotated = await start(ROTATED);
    const keys = await nationalIdKeys(rotated.db, testConfig(ROTATED));
    for (const [customer, nationalId, hash] of [[old, oldId, hashes.old], [versionOne, versionOneId, hashes.versionOne]]) {
      const row = await rowOf(rotated, customer.id);
      expect(row.national_id_key_version, 'sealed again under version 2').to.equal(2);
      expect(row.national_id_sealed).to.match(/^national-id\./).and.not.include(nationalId);
      expect(row.national_id_hash, 'the lookup hash does not rotate').to.equal(hash);
      expect(openNationalId(keys, row)).to.equal(nationalId);
    }

    // Found by national id on the login screen, whose change sends the national id to the provider.
    const caller = await callerOf(rotated);
    for (const nationalId of [oldId, versionOneId]) {
      const change = await post('/login/change-mobile-number', { national_id: nationalId, new_mobile_number: newMobileNumber() }, caller);
      expect(change.status, JSON.stringify(change.body)).to.equal(200);
    }

    // A new customer's national id is sealed under version 2.
    const newId = newNationalId();
    const fresh = await activeCustomer(caller, {}, newId);
    const row = await rowOf(rotated, fresh.id);
    expect(row.national_id_key_version).to.equal(2);
    expect(openNationalId(keys, row)).to.equal(newId);
    // Without version 1 configured, version 2 alone opens it: the rotation leaves nothing behind.
    expect(openNationalId(await nationalIdKeys(rotated.db, testConfig({ ...ROTATED, nationalIdPreviousKeys: {} })), await rowOf(rotated, old.id))).to.equal(oldId);
  });
});
