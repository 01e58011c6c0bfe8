import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { fundedWallet, newBusiness, newWallet, topup, uniq, type TestBusiness } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';
import { running } from '../support/service.js';
import { READS_IN_FLIGHT } from '../../src/db/batchedReads.js';

/** True when the digit string passes the Luhn check (ISO/IEC 7812-1), check digit last. */
function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** `db_batched_reads{reader="accounts_by_id"}` of the suite's instance: statements sent and reads in them. */
async function readBatches(): Promise<{ statements: number; reads: number }> {
  const text = (await get('/metrics')).body as string;
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name}{reader="accounts_by_id"} `))?.split(' ')[1] ?? 0);
  return { statements: value('db_batched_reads_count'), reads: value('db_batched_reads_sum') };
}

/** A new label of the business; asserts 201. */
async function newLabel(token: string, name = `Label ${uniq()}`): Promise<any> {
  const res = await post('/cl/v1/labels', { name }, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

const patch = (path: string, body: unknown, token: string) => request('PATCH', path, { token, body });
const put = (path: string, body: unknown, token: string) => request('PUT', path, { token, body });
const del = (path: string, token: string) => request('DELETE', path, { token });

const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('wallets', () => {
  describe('createWallet', () => {
    let biz: TestBusiness;
    let other: TestBusiness;
    before(async () => {
      biz = await newBusiness();
      other = await newBusiness();
    });

    it('201 echoes every seed field and adds id, account number, balance 0.00 and timestamps', async () => {
      const label = await newLabel(biz.token);
      const seed = {
        business_id: biz.id,
        name: `Ahmed's wallet ${uniq()}`,
        label_id: label.id,
        external_reference: `cust-${uniq()}`,
        can_overdraft: true,
        status: 'ACTIVE',
        currency: 'SAR',
      };
      const res = await post('/cl/v1/wallets', seed, { token: biz.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const w = res.body;
      expect(w).to.include(seed);
      expect(w.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(w.account_number).to.match(/^9\d{11}$/);
      expect(passesLuhn(w.account_number), `Luhn check of ${w.account_number}`).to.equal(true);
      expect(w.balance).to.equal('0.00');
      expect(w.created_at).to.match(isoMs);
      expect(w.updated_at).to.match(isoMs);
      expect(Math.abs(Date.parse(w.created_at) - Date.now())).to.be.lessThan(60_000);
    });

    it('needs only a name: defaults business_id, ACTIVE, SAR, no overdraft, no label', async () => {
      const name = `Minimal ${uniq()}`;
      const res = await post('/cl/v1/wallets', { name }, { token: biz.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({
        business_id: biz.id,
        name,
        label_id: null,
        external_reference: null,
        can_overdraft: false,
        status: 'ACTIVE',
        currency: 'SAR',
        balance: '0.00',
      });
      expect(passesLuhn(res.body.account_number)).to.equal(true);
    });

    it('gives every wallet a unique, Luhn-valid account number, also when created concurrently', async () => {
      const wallets = await Promise.all(Array.from({ length: 25 }, () => newWallet(biz.token)));
      const numbers = wallets.map((w) => w.account_number);
      expect(new Set(numbers).size).to.equal(numbers.length);
      for (const n of numbers) {
        expect(n).to.match(/^9\d{11}$/);
        expect(passesLuhn(n), `Luhn check of ${n}`).to.equal(true);
      }
    });

    it('400 VALIDATION_ERROR pointing at /name when name is missing', async () => {
      const res = await post('/cl/v1/wallets', { external_reference: `x-${uniq()}` }, { token: biz.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: any) => e.pointer)).to.include('/name');
    });

    it('400 for status SUSPENDED at creation, currency USD, an extra property or a non-boolean can_overdraft', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ status: 'SUSPENDED' }, '/status'],
        [{ currency: 'USD' }, '/currency'],
        [{ colour: 'blue' }, '/colour'],
        [{ can_overdraft: 'yes' }, '/can_overdraft'],
      ];
      for (const [extra, pointer] of cases) {
        const res = await post('/cl/v1/wallets', { name: `Bad ${uniq()}`, ...extra }, { token: biz.token });
        expect(res.status, JSON.stringify(extra)).to.equal(400);
        expect(res.body.code, JSON.stringify(extra)).to.equal('VALIDATION_ERROR');
        expect(res.body.errors.map((e: any) => e.pointer), JSON.stringify(extra)).to.include(pointer);
      }
      const list = await get('/cl/v1/wallets?limit=100', { token: biz.token });
      expect(list.body.data.filter((w: any) => w.name.startsWith('Bad '))).to.have.length(0);
    });

    it("404 BUSINESS_NOT_FOUND for another business's business_id", async () => {
      const res = await post('/cl/v1/wallets', { name: `W ${uniq()}`, business_id: other.id }, { token: biz.token });
      expectProblem(res, 404, 'BUSINESS_NOT_FOUND');
    });

    it("404 LABEL_NOT_FOUND for another business's label_id", async () => {
      const foreignLabel = await newLabel(other.token);
      const res = await post('/cl/v1/wallets', { name: `W ${uniq()}`, label_id: foreignLabel.id }, { token: biz.token });
      expectProblem(res, 404, 'LABEL_NOT_FOUND');
    });
  });

  describe('getWallet', () => {
    let biz: TestBusiness;
    let other: TestBusiness;
    before(async () => {
      biz = await newBusiness();
      other = await newBusiness();
    });

    it('200 returns the wallet as created', async () => {
      const created = await newWallet(biz.token, { external_reference: `ref-${uniq()}` });
      const res = await get(`/cl/v1/wallets/${created.id}`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created);
    });

    it('404 WALLET_NOT_FOUND for a random id', async () => {
      const res = await get(`/cl/v1/wallets/${randomUUID()}`, { token: biz.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });

    it("404 WALLET_NOT_FOUND (never 403) for another business's wallet", async () => {
      const foreign = await newWallet(other.token);
      const res = await get(`/cl/v1/wallets/${foreign.id}`, { token: biz.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });

    it('400 VALIDATION_ERROR for an id that is not a uuid', async () => {
      const res = await get('/cl/v1/wallets/not-a-uuid', { token: biz.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
    });

    it('answers concurrent reads from shared statements, each with its own wallet, balance as just written, or 404', async () => {
      const mine = await Promise.all(Array.from({ length: 12 }, (_, i) => fundedWallet(biz.token, `${i + 1}.00`)));
      const foreign = await newWallet(other.token);
      const reads: { id: string; expect: number; balance?: string }[] = [
        ...mine.map((w, i) => ({ id: w.id, expect: 200, balance: `${i + 1}.00` })),
        ...mine.slice(0, 4).map((w, i) => ({ id: w.id.toUpperCase(), expect: 200, balance: `${i + 1}.00` })),
        { id: foreign.id, expect: 404 },
        { id: randomUUID(), expect: 404 },
      ];
      const before = await readBatches();
      // The table held for a moment: the first statements wait inside PostgreSQL, the other reads in the instance.
      const hold = await running().db.transaction();
      await hold.raw('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE');
      const answers = Promise.all(reads.map((r) => get(`/cl/v1/wallets/${r.id}`, { token: biz.token })));
      await new Promise((r) => setTimeout(r, 300));
      await hold.commit();
      for (const [i, res] of (await answers).entries()) {
        const r = reads[i];
        if (r.expect === 404) expectProblem(res, 404, 'WALLET_NOT_FOUND');
        else expect([res.status, res.body.id, res.body.balance]).to.deep.equal([200, r.id.toLowerCase(), r.balance]);
      }
      const after = await readBatches();
      expect(after.reads - before.reads, 'every read counted').to.equal(reads.length);
      expect(after.statements - before.statements, 'statements for the reads').to.be.at.most(READS_IN_FLIGHT + 1);
    });
  });

  describe('listWallets', () => {
    let biz: TestBusiness;
    let label: any;
    const created: any[] = [];
    before(async () => {
      biz = await newBusiness();
      label = await newLabel(biz.token);
      for (let i = 0; i < 5; i++) {
        created.push(await newWallet(biz.token, i % 2 === 0 ? { label_id: label.id } : {}));
      }
      const res = await patch(`/cl/v1/wallets/${created[1].id}`, { status: 'SUSPENDED' }, biz.token);
      expect(res.status).to.equal(200);
      created[1] = res.body;
    });

    it('lists only the business wallets, newest first', async () => {
      const other = await newBusiness();
      await newWallet(other.token);
      const res = await get('/cl/v1/wallets?limit=100', { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.has_more).to.equal(false);
      expect(res.body.next_cursor).to.equal(null);
      expect(res.body.data.map((w: any) => w.id)).to.have.members(created.map((w) => w.id));
      for (const w of res.body.data) expect(w.business_id).to.equal(biz.id);
      const times = res.body.data.map((w: any) => Date.parse(w.created_at));
      for (let i = 1; i < times.length; i++) expect(times[i]).to.be.at.most(times[i - 1]);
    });

    it('pages with limit and cursor without duplicates or gaps', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/cl/v1/wallets?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await get(url, { token: biz.token });
        expect(res.status).to.equal(200);
        sizes.push(res.body.data.length);
        seen.push(...res.body.data.map((w: any) => w.id));
        expect(res.body.has_more).to.equal(res.body.next_cursor !== null);
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(sizes).to.deep.equal([2, 2, 1]);
      expect(new Set(seen).size).to.equal(seen.length);
      const all = await get('/cl/v1/wallets?limit=100', { token: biz.token });
      expect(seen).to.deep.equal(all.body.data.map((w: any) => w.id));
    });

    it('filters by status', async () => {
      const suspended = await get('/cl/v1/wallets?status=SUSPENDED', { token: biz.token });
      expect(suspended.status).to.equal(200);
      expect(suspended.body.data.map((w: any) => w.id)).to.deep.equal([created[1].id]);
      const active = await get('/cl/v1/wallets?status=ACTIVE&limit=100', { token: biz.token });
      expect(active.body.data.map((w: any) => w.id)).to.have.members([created[0].id, created[2].id, created[3].id, created[4].id]);
      for (const w of active.body.data) expect(w.status).to.equal('ACTIVE');
    });

    it('filters by label_id', async () => {
      const res = await get(`/cl/v1/wallets?label_id=${label.id}&limit=100`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.data.map((w: any) => w.id)).to.have.members([created[0].id, created[2].id, created[4].id]);
      for (const w of res.body.data) expect(w.label_id).to.equal(label.id);
    });

    it('filters by name and by external reference, each matched exactly', async () => {
      const reference = `ref-${uniq()}`;
      const named = await newWallet(biz.token, { name: `Named ${reference}`, external_reference: reference });
      const byName = await get(`/cl/v1/wallets?name=${encodeURIComponent(named.name)}`, { token: biz.token });
      expect(byName.status).to.equal(200);
      expect(byName.body.data.map((w: any) => w.id)).to.deep.equal([named.id]);
      const byReference = await get(`/cl/v1/wallets?external_reference=${reference}`, { token: biz.token });
      expect(byReference.body.data.map((w: any) => w.id)).to.deep.equal([named.id]);
      expect((await get(`/cl/v1/wallets?external_reference=${reference.slice(0, -1)}`, { token: biz.token })).body.data).to.deep.equal([]);
      const other = await newBusiness();
      expect((await get(`/cl/v1/wallets?external_reference=${reference}`, { token: other.token })).body.data).to.deep.equal([]);
    });

    it('400 for an unknown status filter', async () => {
      const res = await get('/cl/v1/wallets?status=FROZEN', { token: biz.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
    });
  });

  describe('lookupWallet', () => {
    let biz: TestBusiness;
    let labelA: any;
    let labelB: any;
    let sharedName: string;
    let inA: any;
    let inB: any;
    before(async () => {
      biz = await newBusiness();
      labelA = await newLabel(biz.token);
      labelB = await newLabel(biz.token);
      sharedName = `Shared ${uniq()}`;
      inA = await newWallet(biz.token, { name: sharedName, label_id: labelA.id });
      inB = await newWallet(biz.token, { name: sharedName, label_id: labelB.id });
    });

    it('finds a wallet by account_number', async () => {
      const res = await get(`/cl/v1/wallets/lookup?account_number=${inA.account_number}`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(inA);
    });

    it('finds a wallet by a unique name', async () => {
      const w = await newWallet(biz.token, { name: `Unique ${uniq()}` });
      const res = await get(`/cl/v1/wallets/lookup?name=${encodeURIComponent(w.name)}`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(w.id);
    });

    it('finds a wallet by external_reference', async () => {
      const w = await newWallet(biz.token, { external_reference: `cust-${uniq()}` });
      const res = await get(`/cl/v1/wallets/lookup?external_reference=${encodeURIComponent(w.external_reference)}`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(w.id);
    });

    it('409 WALLET_LOOKUP_AMBIGUOUS when two wallets share the name; label_id narrows it to one', async () => {
      const ambiguous = await get(`/cl/v1/wallets/lookup?name=${encodeURIComponent(sharedName)}`, { token: biz.token });
      expectProblem(ambiguous, 409, 'WALLET_LOOKUP_AMBIGUOUS');
      const a = await get(`/cl/v1/wallets/lookup?name=${encodeURIComponent(sharedName)}&label_id=${labelA.id}`, { token: biz.token });
      expect(a.status).to.equal(200);
      expect(a.body.id).to.equal(inA.id);
      const b = await get(`/cl/v1/wallets/lookup?name=${encodeURIComponent(sharedName)}&label_id=${labelB.id}`, { token: biz.token });
      expect(b.status).to.equal(200);
      expect(b.body.id).to.equal(inB.id);
    });

    it('404 WALLET_NOT_FOUND when nothing matches (also when the criteria contradict each other)', async () => {
      const none = await get(`/cl/v1/wallets/lookup?name=${encodeURIComponent(`Nobody ${uniq()}`)}`, { token: biz.token });
      expectProblem(none, 404, 'WALLET_NOT_FOUND');
      const contradict = await get(`/cl/v1/wallets/lookup?account_number=${inA.account_number}&label_id=${labelB.id}`, { token: biz.token });
      expectProblem(contradict, 404, 'WALLET_NOT_FOUND');
    });

    it("404 for another business's account number", async () => {
      const other = await newBusiness();
      const res = await get(`/cl/v1/wallets/lookup?account_number=${inA.account_number}`, { token: other.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });

    it('400 VALIDATION_ERROR without any criterion (label_id alone is not one)', async () => {
      const bare = await get('/cl/v1/wallets/lookup', { token: biz.token });
      expectProblem(bare, 400, 'VALIDATION_ERROR');
      const labelOnly = await get(`/cl/v1/wallets/lookup?label_id=${labelA.id}`, { token: biz.token });
      expectProblem(labelOnly, 400, 'VALIDATION_ERROR');
    });
  });

  describe('updateWallet', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('renames a wallet and keeps the rest', async () => {
      const w = await newWallet(biz.token);
      const name = `Renamed ${uniq()}`;
      const res = await patch(`/cl/v1/wallets/${w.id}`, { name }, biz.token);
      expect(res.status).to.equal(200);
      expect(res.body.name).to.equal(name);
      expect(res.body).to.include({ id: w.id, account_number: w.account_number, status: 'ACTIVE', balance: '0.00' });
      expect(Date.parse(res.body.updated_at)).to.be.at.least(Date.parse(w.updated_at));
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.name).to.equal(name);
    });

    it('changes external_reference (also to null) and can_overdraft', async () => {
      const w = await newWallet(biz.token, { external_reference: `old-${uniq()}` });
      const ref = `new-${uniq()}`;
      const a = await patch(`/cl/v1/wallets/${w.id}`, { external_reference: ref, can_overdraft: true }, biz.token);
      expect(a.status).to.equal(200);
      expect(a.body).to.include({ external_reference: ref, can_overdraft: true, name: w.name });
      const b = await patch(`/cl/v1/wallets/${w.id}`, { external_reference: null }, biz.token);
      expect(b.status).to.equal(200);
      expect(b.body).to.include({ external_reference: null, can_overdraft: true });
    });

    it('switches ACTIVE → SUSPENDED → ACTIVE', async () => {
      const w = await newWallet(biz.token);
      const suspended = await patch(`/cl/v1/wallets/${w.id}`, { status: 'SUSPENDED' }, biz.token);
      expect(suspended.status).to.equal(200);
      expect(suspended.body.status).to.equal('SUSPENDED');
      const active = await patch(`/cl/v1/wallets/${w.id}`, { status: 'ACTIVE' }, biz.token);
      expect(active.status).to.equal(200);
      expect(active.body.status).to.equal('ACTIVE');
    });

    it('a SUSPENDED wallet cannot receive funds: 422 WALLET_NOT_ACTIVE, balance unchanged', async () => {
      const w = await newWallet(biz.token);
      await topup(biz.token, '100.00');
      expect((await patch(`/cl/v1/wallets/${w.id}`, { status: 'SUSPENDED' }, biz.token)).status).to.equal(200);
      const res = await post('/cl/v1/funds', { wallet_id: w.id, amount: '10.00' }, { token: biz.token });
      expectProblem(res, 422, 'WALLET_NOT_ACTIVE');
      expect((await get(`/cl/v1/wallets/${w.id}/balance`, { token: biz.token })).body.balance).to.equal('0.00');
    });

    it('409 WALLET_BALANCE_NOT_ZERO when closing a wallet that holds money', async () => {
      const w = await fundedWallet(biz.token, '25.00');
      const res = await patch(`/cl/v1/wallets/${w.id}`, { status: 'CLOSED' }, biz.token);
      expectProblem(res, 409, 'WALLET_BALANCE_NOT_ZERO');
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.status).to.equal('ACTIVE');
    });

    it('closes a zero-balance wallet; reopening it is 409 INVALID_STATUS_TRANSITION', async () => {
      const w = await newWallet(biz.token);
      const closed = await patch(`/cl/v1/wallets/${w.id}`, { status: 'CLOSED' }, biz.token);
      expect(closed.status).to.equal(200);
      expect(closed.body.status).to.equal('CLOSED');
      for (const status of ['ACTIVE', 'SUSPENDED']) {
        const res = await patch(`/cl/v1/wallets/${w.id}`, { status }, biz.token);
        expect(res.status, status).to.equal(409);
        expect(res.body.code, status).to.equal('INVALID_STATUS_TRANSITION');
      }
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.status).to.equal('CLOSED');
    });

    it('400 VALIDATION_ERROR for an empty body', async () => {
      const w = await newWallet(biz.token);
      const res = await patch(`/cl/v1/wallets/${w.id}`, {}, biz.token);
      expectProblem(res, 400, 'VALIDATION_ERROR');
    });

    it('404 WALLET_NOT_FOUND for an unknown wallet', async () => {
      const res = await patch(`/cl/v1/wallets/${randomUUID()}`, { name: 'x' }, biz.token);
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });
  });

  describe('getWalletBalance', () => {
    let biz: TestBusiness;
    before(async () => {
      biz = await newBusiness();
    });

    it('200 with the balance after funding', async () => {
      const w = await fundedWallet(biz.token, '150.75');
      const res = await get(`/cl/v1/wallets/${w.id}/balance`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ wallet_id: w.id, account_number: w.account_number, currency: 'SAR', balance: '150.75', can_overdraft: false });
      expect(res.body.as_of).to.match(isoMs);
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.balance).to.equal('150.75');
    });

    it('404 WALLET_NOT_FOUND for an unknown wallet', async () => {
      const res = await get(`/cl/v1/wallets/${randomUUID()}/balance`, { token: biz.token });
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });
  });

  describe('wallet labels', () => {
    let biz: TestBusiness;
    let first: any;
    let second: any;
    before(async () => {
      biz = await newBusiness();
      first = await newLabel(biz.token);
      second = await newLabel(biz.token);
    });

    it('assignWalletLabel sets the label, replacing a previous one', async () => {
      const w = await newWallet(biz.token);
      const a = await put(`/cl/v1/wallets/${w.id}/label`, { label_id: first.id }, biz.token);
      expect(a.status).to.equal(200);
      expect(a.body.label_id).to.equal(first.id);
      const b = await put(`/cl/v1/wallets/${w.id}/label`, { label_id: second.id }, biz.token);
      expect(b.status).to.equal(200);
      expect(b.body.label_id).to.equal(second.id);
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.label_id).to.equal(second.id);
    });

    it('assignWalletLabel: 404 LABEL_NOT_FOUND for an unknown label, 404 WALLET_NOT_FOUND for an unknown wallet', async () => {
      const w = await newWallet(biz.token, { label_id: first.id });
      const badLabel = await put(`/cl/v1/wallets/${w.id}/label`, { label_id: randomUUID() }, biz.token);
      expectProblem(badLabel, 404, 'LABEL_NOT_FOUND');
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.label_id).to.equal(first.id);
      const badWallet = await put(`/cl/v1/wallets/${randomUUID()}/label`, { label_id: first.id }, biz.token);
      expectProblem(badWallet, 404, 'WALLET_NOT_FOUND');
    });

    it("assignWalletLabel: 404 LABEL_NOT_FOUND for another business's label", async () => {
      const other = await newBusiness();
      const foreign = await newLabel(other.token);
      const w = await newWallet(biz.token);
      const res = await put(`/cl/v1/wallets/${w.id}/label`, { label_id: foreign.id }, biz.token);
      expectProblem(res, 404, 'LABEL_NOT_FOUND');
    });

    it('removeWalletLabel clears the label (label_id null)', async () => {
      const w = await newWallet(biz.token, { label_id: first.id });
      const res = await del(`/cl/v1/wallets/${w.id}/label`, biz.token);
      expect(res.status).to.equal(200);
      expect(res.body.label_id).to.equal(null);
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.label_id).to.equal(null);
      const again = await del(`/cl/v1/wallets/${w.id}/label`, biz.token);
      expect(again.status).to.equal(200);
      expect(again.body.label_id).to.equal(null);
    });

    it('removeWalletLabel: 404 WALLET_NOT_FOUND for an unknown wallet', async () => {
      const res = await del(`/cl/v1/wallets/${randomUUID()}/label`, biz.token);
      expectProblem(res, 404, 'WALLET_NOT_FOUND');
    });

    it("removeSpecificWalletLabel: 200 when it is the wallet's label", async () => {
      const w = await newWallet(biz.token, { label_id: first.id });
      const res = await del(`/cl/v1/wallets/${w.id}/labels/${first.id}`, biz.token);
      expect(res.status).to.equal(200);
      expect(res.body.label_id).to.equal(null);
    });

    it('removeSpecificWalletLabel: 404 WALLET_NOT_FOUND for an unknown wallet', async () => {
      expectProblem(await del(`/cl/v1/wallets/${randomUUID()}/labels/${first.id}`, biz.token), 404, 'WALLET_NOT_FOUND');
    });

    it('removeSpecificWalletLabel: 404 LABEL_NOT_FOUND when the wallet has another label, which stays', async () => {
      const w = await newWallet(biz.token, { label_id: first.id });
      const res = await del(`/cl/v1/wallets/${w.id}/labels/${second.id}`, biz.token);
      expectProblem(res, 404, 'LABEL_NOT_FOUND');
      expect((await get(`/cl/v1/wallets/${w.id}`, { token: biz.token })).body.label_id).to.equal(first.id);
    });
  });
});
