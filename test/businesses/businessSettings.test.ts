/**
 * A business's settings besides its API version, through `updateBusiness`: the time zone its
 * people read dates in and the payout account's low-balance threshold. Both start unset (UTC,
 * none), change alone or together, and a bad value is refused and changes nothing.
 */
import { expect } from 'chai';
import { get, request } from '../support/client.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { newBusiness } from '../support/fixtures.js';

const patch = (id: string, body: unknown, token: string) => request('PATCH', `/cl/v1/businesses/${id}`, { token, body });

describe('business settings: time zone and payout low-balance threshold', () => {
  it('starts at UTC with no threshold, and changes each alone, keeping the other', async () => {
    const b = await newBusiness();
    const first = await get(`/cl/v1/businesses/${b.id}`, { token: b.token });
    expect(first.body).to.include({ time_zone: 'UTC', payout_low_balance_threshold: null, api_version: 'v1' });
    const zoned = await patch(b.id, { time_zone: 'Asia/Riyadh' }, b.token);
    expect(zoned.status, JSON.stringify(zoned.body)).to.equal(200);
    expect(zoned.body).to.include({ time_zone: 'Asia/Riyadh', payout_low_balance_threshold: null, api_version: 'v1' });
    const warned = await patch(b.id, { payout_low_balance_threshold: '5000.00' }, b.token);
    expect(warned.body).to.include({ time_zone: 'Asia/Riyadh', payout_low_balance_threshold: '5000.00' });
    const cleared = await patch(b.id, { payout_low_balance_threshold: null, time_zone: 'Europe/London', api_version: 'v2' }, b.token);
    expect(cleared.body).to.include({ time_zone: 'Europe/London', payout_low_balance_threshold: null, api_version: 'v2' });
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body).to.deep.equal(cleared.body);
  });

  it('refuses a zone the IANA database does not name, a malformed one and a bad amount, changing nothing', async () => {
    const b = await newBusiness();
    const before = (await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body;
    expectValidation(await patch(b.id, { time_zone: 'Mars/Olympus_Mons' }, b.token), '/time_zone');
    expectValidation(await patch(b.id, { time_zone: 'UTC; DROP TABLE' }, b.token), '/time_zone');
    expectValidation(await patch(b.id, { payout_low_balance_threshold: '12,50' }, b.token), '/payout_low_balance_threshold');
    expectValidation(await patch(b.id, { payout_low_balance_threshold: '-1.00' }, b.token), '/payout_low_balance_threshold');
    expect((await get(`/cl/v1/businesses/${b.id}`, { token: b.token })).body).to.deep.equal(before);
    const other = await newBusiness();
    expectProblem(await patch(other.id, { time_zone: 'Asia/Riyadh' }, b.token), 404, 'BUSINESS_NOT_FOUND');
  });
});
