/**
 * A statement of any size: 200,000 entries on one wallet (posted through `ledger_post` by
 * SQL, as funds of 0.01 from the operational account, in a few statements) are served as
 * a streamed CSV in constant memory and as JSON pages by cursor.
 *
 * The service runs in this process (test/support/service.ts), so its memory is this
 * process's: while the CSV is read line by line (and kept by no one), the memory still
 * live after a full garbage collection is sampled every 250 ms. A statement built in memory
 * (200,000 rows read at once, then the document) keeps well over 100 MiB live; the streamed
 * one, a few chunks of 2,000 entries. The resident set is printed beside it: it also holds
 * garbage not yet collected, as much as V8's heap sizing lets accumulate (it grew by some
 * 190 MiB here), which says how lazily V8 collects rather than what the stream keeps.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { get } from '../support/client.js';
import { baseUrl, running } from '../support/service.js';
import { newBusiness, newWallet, topup, type TestBusiness } from '../support/fixtures.js';

const ENTRIES = 200_000;
/** Most the memory live after a full collection may grow while the CSV streams. */
const LIVE_GROWTH_LIMIT_MIB = 32;

setFlagsFromString('--expose-gc');
/** V8's full garbage collection (exposed by the flag above to contexts made after it). */
const gc = runInNewContext('gc') as () => void;

/** Bytes live after a full collection: the JavaScript heap and the buffers outside it. */
function liveBytes(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

const cents = (money: string): number => Math.round(Number(money) * 100);

describe('a statement of 200,000 entries', function () {
  this.timeout(600_000);
  let biz: TestBusiness;
  let wallet: any;

  before(async () => {
    biz = await newBusiness();
    wallet = await newWallet(biz.token);
    await topup(biz.token, '2000.00');
    const db = running().db;
    const [{ business_id: businessId, id: operational }] = (
      await db.raw(`SELECT business_id, id FROM accounts WHERE kind = 'OPERATIONAL' AND business_id = (SELECT business_id FROM accounts WHERE id = ?)`, [wallet.id])
    ).rows;
    // 20,000 postings a transaction, both balances held in it (ledger_hold_balances), as a
    // batch does: a row updated at every posting would leave 20,000 versions to step over.
    for (let done = 0; done < ENTRIES; done += 20_000) {
      await db.transaction(async (trx) => {
        await trx.raw('SELECT ledger_hold_balances(?::uuid, ARRAY[?, ?]::uuid[])', [businessId, operational, wallet.id]);
        const result = await trx.raw(
          `SELECT count(*) FILTER (WHERE p -> 'refusal' IS NOT NULL)::int AS refused FROM (
             SELECT ledger_post(?::uuid, 'FUND', 'OPERATIONAL', NULL, 'WALLET', ?, '0.01', NULL, NULL, NULL) AS p
               FROM generate_series(1, 20000)) x`,
          [businessId, wallet.id],
        );
        expect(result.rows[0].refused).to.equal(0);
        await trx.raw('SELECT ledger_release_balances(?::uuid)', [businessId]);
      });
    }
  });

  it('streams as CSV with flat memory: every entry once, oldest first, balances continuous, between the opening and closing rows', async () => {
    const before = liveBytes();
    const rssBefore = process.memoryUsage().rss;
    let peak = before;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, liveBytes());
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 250);
    let lines = 0;
    let running = 0;
    let first: string[] = [];
    let last: string[] = [];
    let partial = '';
    try {
      const res = await fetch(`${baseUrl()}/cl/v1/wallets/${wallet.id}/statement.csv`, { headers: { authorization: `Bearer ${biz.token}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('transfer-encoding')).to.equal('chunked');
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = partial + decoder.decode(chunk, { stream: true });
        const split = text.split('\n');
        partial = split.pop()!;
        for (const line of split) {
          lines++;
          if (lines === 1) {
            expect(line).to.equal('created_at,transaction_id,reference,type,direction,amount,balance_after');
            continue;
          }
          const row = line.split(',');
          if (lines === 2) {
            first = row;
            running = cents(row[6]);
            continue;
          }
          last = row;
          if (row[3] === 'CLOSING_BALANCE') continue;
          expect(row[3], line).to.equal('FUND');
          running += row[4] === 'CREDIT' ? cents(row[5]) : -cents(row[5]);
          expect(cents(row[6]), line).to.equal(running);
        }
      }
    } finally {
      clearInterval(sampler);
    }
    expect(partial).to.equal('');
    expect(lines).to.equal(ENTRIES + 3);
    expect(first.slice(3)).to.deep.equal(['OPENING_BALANCE', '', '', '0.00']);
    expect(last.slice(3)).to.deep.equal(['CLOSING_BALANCE', '', '', '2000.00']);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    console.log(`      live after GC: ${mib(before)} MiB before, peak ${mib(peak)} MiB while streaming; resident set ${mib(rssBefore)} → peak ${mib(rssPeak)} MiB`);
    expect((peak - before) / 2 ** 20).to.be.below(LIVE_GROWTH_LIMIT_MIB);
  });

  it('pages as JSON: 10,000 entries a page by default, the next page opening with the closing balance of the one before', async () => {
    const one = await get(`/cl/v1/wallets/${wallet.id}/statement`, { token: biz.token });
    expect(one.status).to.equal(200);
    expect(one.body.entries).to.have.length(10_000);
    expect(one.body).to.include({ opening_balance: '0.00', closing_balance: '100.00', total_credits: '100.00', total_debits: '0.00', has_more: true });
    const two = await get(`/cl/v1/wallets/${wallet.id}/statement?limit=10000&cursor=${one.body.next_cursor}`, { token: biz.token });
    expect(two.body).to.include({ opening_balance: '100.00', closing_balance: '200.00', has_more: true });
    expect(two.body.entries[0].balance_after).to.equal('100.01');
  });
});
