import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { credit, newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';
import { expectProblem } from '../support/assertions.js';

/** Lets the clock move on so consecutive transactions get distinct created_at milliseconds. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

async function move(token: string, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await post(`/cl/v1/${path}`, body, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** Money string in cents, for exact arithmetic. */
const cents = (money: string): number => Math.round(Number(money) * 100);
const money = (c: number): string => (c / 100).toFixed(2);

const CSV_HEADER = 'created_at,transaction_id,reference,type,direction,amount,balance_after';

describe('wallet statements', () => {
  /**
   * Wallet w, in order: fund 300.00 (→ 300.00), withdrawal 100.00 (→ 200.00),
   * payout 50.25 (→ 250.25), transfer 30.00 to w2 (→ 220.25).
   */
  let biz: TestBusiness;
  let w: any;
  let w2: any;
  let fundTx: any;
  let withdrawalTx: any;
  let payoutTx: any;
  let transferTx: any;

  before(async () => {
    biz = await newBusiness();
    w = await newWallet(biz.token);
    w2 = await newWallet(biz.token);
    await topup(biz.token, '1000.00');
    await tick();
    fundTx = await credit(biz.token, w.id, '300.00', 'funds');
    await tick();
    withdrawalTx = await move(biz.token, 'withdrawals', { wallet_id: w.id, amount: '100' });
    await tick();
    payoutTx = await credit(biz.token, w.id, '50.25', 'payouts');
    await tick();
    transferTx = await move(biz.token, 'transfers', { source_wallet_id: w.id, destination_wallet_id: w2.id, amount: '30.00' });
  });

  describe('JSON', () => {
    it('opening balance, entries oldest first with running balance, closing balance and totals', async () => {
      const res = await get(`/cl/v1/wallets/${w.id}/statement`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const s = res.body;
      expect(s).to.include({
        wallet_id: w.id,
        account_number: w.account_number,
        currency: 'SAR',
        opening_balance: '0.00',
        closing_balance: '220.25',
        total_debits: '130.00',
        total_credits: '350.25',
      });
      expect(s.from).to.equal(w.created_at);
      expect(Date.parse(s.to)).to.be.at.least(Date.parse(transferTx.created_at));
      expect(s.entries.map((e: any) => [e.transaction_id, e.reference, e.type, e.direction, e.amount, e.balance_after])).to.deep.equal([
        [fundTx.id, fundTx.reference, 'FUND', 'CREDIT', '300.00', '300.00'],
        [withdrawalTx.id, withdrawalTx.reference, 'WITHDRAWAL', 'DEBIT', '100.00', '200.00'],
        [payoutTx.id, payoutTx.reference, 'PAYOUT', 'CREDIT', '50.25', '250.25'],
        [transferTx.id, transferTx.reference, 'TRANSFER', 'DEBIT', '30.00', '220.25'],
      ]);
      expect(s.entries.map((e: any) => e.created_at)).to.deep.equal([fundTx, withdrawalTx, payoutTx, transferTx].map((t) => t.created_at));

      let running = cents(s.opening_balance);
      for (const e of s.entries) {
        running += e.direction === 'CREDIT' ? cents(e.amount) : -cents(e.amount);
        expect(e.balance_after).to.equal(money(running));
      }
      expect(s.closing_balance).to.equal(money(running));
      expect(money(cents(s.opening_balance) + cents(s.total_credits) - cents(s.total_debits))).to.equal(s.closing_balance);
      const balance = await get(`/cl/v1/wallets/${w.id}/balance`, { token: biz.token });
      expect(balance.body.balance).to.equal(s.closing_balance);
    });

    it('a period starting after some entries opens with the balance before it', async () => {
      const from = withdrawalTx.created_at;
      const res = await get(`/cl/v1/wallets/${w.id}/statement?from=${encodeURIComponent(from)}`, { token: biz.token });
      expect(res.status).to.equal(200);
      const s = res.body;
      expect(s.from).to.equal(from);
      expect(s).to.include({ opening_balance: '300.00', closing_balance: '220.25', total_debits: '130.00', total_credits: '50.25' });
      expect(s.entries.map((e: any) => e.transaction_id)).to.deep.equal([withdrawalTx.id, payoutTx.id, transferTx.id]);
    });

    it('a period [from, to) in the middle has its own opening, closing and totals', async () => {
      const from = withdrawalTx.created_at;
      const to = transferTx.created_at;
      const res = await get(`/cl/v1/wallets/${w.id}/statement?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, {
        token: biz.token,
      });
      expect(res.status).to.equal(200);
      const s = res.body;
      expect(s).to.include({ from, to, opening_balance: '300.00', closing_balance: '250.25', total_debits: '100.00', total_credits: '50.25' });
      expect(s.entries.map((e: any) => [e.type, e.balance_after])).to.deep.equal([
        ['WITHDRAWAL', '200.00'],
        ['PAYOUT', '250.25'],
      ]);
    });

    it('a period without entries has no entries and equal opening and closing balances', async () => {
      const from = new Date(Date.parse(transferTx.created_at) + 1).toISOString();
      const to = new Date(Date.now() + 60_000).toISOString();
      const res = await get(`/cl/v1/wallets/${w.id}/statement?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, {
        token: biz.token,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ opening_balance: '220.25', closing_balance: '220.25', total_debits: '0.00', total_credits: '0.00' });
      expect(res.body.entries).to.deep.equal([]);
    });

    it('a new wallet has an empty statement at 0.00', async () => {
      const idle = await newWallet(biz.token);
      const res = await get(`/cl/v1/wallets/${idle.id}/statement`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ opening_balance: '0.00', closing_balance: '0.00', total_debits: '0.00', total_credits: '0.00' });
      expect(res.body.entries).to.deep.equal([]);
    });

    it('400 VALIDATION_ERROR when from is after to', async () => {
      const res = await get(
        `/cl/v1/wallets/${w.id}/statement?from=${encodeURIComponent(transferTx.created_at)}&to=${encodeURIComponent(fundTx.created_at)}`,
        { token: biz.token },
      );
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: any) => e.pointer)).to.include('/query/from');
    });

    it('400 VALIDATION_ERROR for a from that is not a date-time', async () => {
      const res = await get(`/cl/v1/wallets/${w.id}/statement?from=last-week`, { token: biz.token });
      expectProblem(res, 400, 'VALIDATION_ERROR');
    });

    it("404 WALLET_NOT_FOUND for an unknown wallet and for another business's wallet", async () => {
      const unknown = await get(`/cl/v1/wallets/${randomUUID()}/statement`, { token: biz.token });
      expectProblem(unknown, 404, 'WALLET_NOT_FOUND');
      expectProblem(await get(`/cl/v1/wallets/${randomUUID()}/statement.csv`, { token: biz.token }), 404, 'WALLET_NOT_FOUND');
      const other = await newBusiness();
      const foreign = await get(`/cl/v1/wallets/${w.id}/statement`, { token: other.token });
      expectProblem(foreign, 404, 'WALLET_NOT_FOUND');
    });
  });

  describe('paging by cursor', () => {
    /** Wallet pw: 23 movements (funds, every third a transfer out), several in one millisecond. */
    let pb: TestBusiness;
    let pw: any;
    let pw2: any;
    let whole: any;

    before(async () => {
      pb = await newBusiness();
      pw = await newWallet(pb.token);
      pw2 = await newWallet(pb.token);
      await topup(pb.token, '10000.00');
      for (let i = 1; i <= 23; i++) {
        if (i % 3 === 0) await move(pb.token, 'transfers', { source_wallet_id: pw.id, destination_wallet_id: pw2.id, amount: `${i}.50` });
        else await credit(pb.token, pw.id, `${i * 10}.25`);
      }
      whole = (await get(`/cl/v1/wallets/${pw.id}/statement`, { token: pb.token })).body;
      expect(whole.entries).to.have.length(23);
      expect(whole).to.include({ has_more: false, next_cursor: null });
    });

    /** Every page of pw's statement over `whole`'s period, `limit` entries a page, following next_cursor. */
    async function pages(limit: number): Promise<any[]> {
      const out: any[] = [];
      let url: string | null = `/cl/v1/wallets/${pw.id}/statement?to=${encodeURIComponent(whole.to)}&limit=${limit}`;
      while (url) {
        const res: { status: number; body: any } = await get(url, { token: pb.token });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        out.push(res.body);
        url = res.body.next_cursor ? `/cl/v1/wallets/${pw.id}/statement?limit=${limit}&cursor=${res.body.next_cursor}` : null;
      }
      return out;
    }

    it('serves the period page by page: each page opens with the closing balance of the one before, no entry missing or repeated', async () => {
      for (const limit of [1, 4, 10, 23, 24]) {
        const got = await pages(limit);
        expect(got, `limit ${limit}`).to.have.length(Math.ceil(23 / limit));
        expect(got.flatMap((p) => p.entries), `limit ${limit}`).to.deep.equal(whole.entries);
        expect(got[0].opening_balance).to.equal(whole.opening_balance);
        expect(got[got.length - 1].closing_balance).to.equal(whole.closing_balance);
        got.forEach((p, i) => {
          const last = i === got.length - 1;
          expect(p, `limit ${limit} page ${i + 1}`).to.include({ wallet_id: pw.id, from: whole.from, to: whole.to, has_more: !last });
          expect(p.next_cursor === null, `limit ${limit} page ${i + 1}`).to.equal(last);
          expect(p.entries).to.have.length(last ? 23 - limit * i : limit);
          if (i > 0) expect(p.opening_balance, `limit ${limit} page ${i + 1}`).to.equal(got[i - 1].closing_balance);
          let running = cents(p.opening_balance);
          for (const e of p.entries) {
            running += e.direction === 'CREDIT' ? cents(e.amount) : -cents(e.amount);
            expect(e.balance_after).to.equal(money(running));
          }
          expect(p.closing_balance).to.equal(money(running));
          expect(money(cents(p.opening_balance) + cents(p.total_credits) - cents(p.total_debits))).to.equal(p.closing_balance);
        });
      }
    });

    it('a cursor keeps the period of the first page (from and to of the request are not read with it)', async () => {
      const first = await get(`/cl/v1/wallets/${pw.id}/statement?to=${encodeURIComponent(whole.to)}&limit=20`, { token: pb.token });
      const later = new Date(Date.parse(whole.to) + 3_600_000).toISOString();
      const next = await get(`/cl/v1/wallets/${pw.id}/statement?limit=20&to=${encodeURIComponent(later)}&cursor=${first.body.next_cursor}`, { token: pb.token });
      expect(next.status).to.equal(200);
      expect(next.body).to.include({ from: whole.from, to: whole.to, has_more: false, closing_balance: whole.closing_balance });
      expect(next.body.entries).to.deep.equal(whole.entries.slice(20));
    });

    it("400 INVALID_CURSOR for a cursor of another wallet's statement or one this service did not issue", async () => {
      const first = await get(`/cl/v1/wallets/${pw.id}/statement?limit=5`, { token: pb.token });
      expectProblem(await get(`/cl/v1/wallets/${pw2.id}/statement?cursor=${first.body.next_cursor}`, { token: pb.token }), 400, 'INVALID_CURSOR');
      const forged = Buffer.from(`${whole.from}|${whole.to}|${whole.entries[3].created_at}|1`).toString('base64url');
      expectProblem(await get(`/cl/v1/wallets/${pw.id}/statement?cursor=${forged}`, { token: pb.token }), 400, 'INVALID_CURSOR');
      expectProblem(await get(`/cl/v1/wallets/${pw.id}/statement?cursor=AAAA`, { token: pb.token }), 400, 'INVALID_CURSOR');
    });

    it('400 VALIDATION_ERROR for a limit outside 1 to 10000', async () => {
      for (const limit of [0, 10_001]) expectProblem(await get(`/cl/v1/wallets/${pw.id}/statement?limit=${limit}`, { token: pb.token }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('CSV', () => {
    it('getWalletStatementCsv: header line, OPENING_BALANCE first, entries, CLOSING_BALANCE last', async () => {
      const res = await get(`/cl/v1/wallets/${w.id}/statement.csv`, { token: biz.token });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      const lines = (res.body as string).trim().split(/\r?\n/);
      expect(lines[0]).to.equal(CSV_HEADER);
      const rows = lines.slice(1).map((l) => l.split(','));
      expect(rows).to.have.length(6);
      expect(rows[0]).to.deep.equal([w.created_at, '', '', 'OPENING_BALANCE', '', '', '0.00']);
      expect(rows.slice(1, 5)).to.deep.equal([
        [fundTx.created_at, fundTx.id, fundTx.reference, 'FUND', 'CREDIT', '300.00', '300.00'],
        [withdrawalTx.created_at, withdrawalTx.id, withdrawalTx.reference, 'WITHDRAWAL', 'DEBIT', '100.00', '200.00'],
        [payoutTx.created_at, payoutTx.id, payoutTx.reference, 'PAYOUT', 'CREDIT', '50.25', '250.25'],
        [transferTx.created_at, transferTx.id, transferTx.reference, 'TRANSFER', 'DEBIT', '30.00', '220.25'],
      ]);
      const last = rows[rows.length - 1];
      expect(last[3]).to.equal('CLOSING_BALANCE');
      expect(last.slice(1, 3)).to.deep.equal(['', '']);
      expect(last.slice(4)).to.deep.equal(['', '', '220.25']);
    });

    it('a CSV period carries the period opening and closing balances', async () => {
      const from = withdrawalTx.created_at;
      const to = transferTx.created_at;
      const res = await get(`/cl/v1/wallets/${w.id}/statement.csv?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, {
        token: biz.token,
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      const lines = (res.body as string).trim().split(/\r?\n/);
      expect(lines[0]).to.equal(CSV_HEADER);
      expect(lines[1]).to.equal(`${from},,,OPENING_BALANCE,,,300.00`);
      expect(lines.slice(2, -1).map((l) => l.split(',')[1])).to.deep.equal([withdrawalTx.id, payoutTx.id]);
      expect(lines[lines.length - 1]).to.equal(`${to},,,CLOSING_BALANCE,,,250.25`);
    });

    it('without Accept (or with application/json) the statement is JSON', async () => {
      const res = await get(`/cl/v1/wallets/${w.id}/statement`, { token: biz.token, headers: { Accept: 'application/json' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.closing_balance).to.equal('220.25');
    });
  });
});
