/**
 * Sandbox page (shown only when the session is the sandbox's): the core API's test helpers
 * a tester needs by hand. The SMS inbox (`listSandboxSmsMessages`: how a one-time code is
 * read), the business's clock (`advanceSandboxClock`), a payout's outcome as the bank would
 * answer it (`setSandboxPayoutOutcome`) and a card purchase from the card network simulator
 * (`simulateCardAuthorization`).
 */
import { html, useState, useEffect } from '../preact-htm.js';
import { PayoutDetail } from './payouts.js';
import { DataTable, ErrorNote, Pager, When, useRequest } from './wallets-view.js';

/** The SMS messages sent for the business, newest first, optionally to one number. */
function SmsInbox({ api }) {
  const list = useRequest();
  const [number, setNumber] = useState('');
  const [page, setPage] = useState(null);
  const load = (cursor) =>
    list.run(async () => {
      const query = {};
      if (number.trim()) query.mobile_number = number.trim();
      if (cursor) query.cursor = cursor;
      setPage(await api.get('/testhelpers/sms-messages', { query }));
    });
  useEffect(() => {
    load();
  }, []);
  const submit = (event) => {
    event.preventDefault();
    load();
  };

  return html`<section aria-labelledby="sms-title">
    <h3 id="sms-title">SMS inbox</h3>
    <form onSubmit=${submit}>
      <label for="sms-number">Mobile number (optional)</label>
      <input id="sms-number" inputmode="numeric" maxlength="15" value=${number} onInput=${(e) => setNumber(e.currentTarget.value)} />
      <button type="submit" disabled=${list.busy}>Show messages</button>
    </form>
    <${ErrorNote} error=${list.error} />
    ${page
      ? html`<${DataTable}
          caption="SMS messages, newest first"
          rows=${page.data}
          rowKey=${(m) => m.id}
          empty="no messages."
          columns=${[
            { label: 'To', value: (m) => m.mobile_number },
            { label: 'Text', value: (m) => m.text },
            { label: 'Sent', value: (m) => html`<${When} at=${m.created_at} />` },
          ]}
        />
        <${Pager} page=${page} label="SMS messages" busy=${list.busy} onFirst=${() => load()} onNext=${load} />`
      : null}
  </section>`;
}

/** Moves the business's clock forward. */
function Clock({ api }) {
  const advance = useRequest();
  const [seconds, setSeconds] = useState('301');
  const [clock, setClock] = useState(null);
  async function submit(event) {
    event.preventDefault();
    const moved = await advance.run(() => api.post('/testhelpers/clock', { advance_seconds: Number.parseInt(seconds, 10) }));
    if (moved) setClock(moved);
  }
  return html`<section aria-labelledby="clock-title">
    <h3 id="clock-title">Business clock</h3>
    <form onSubmit=${submit}>
      <label for="clock-seconds">Seconds to move forward</label>
      <input id="clock-seconds" type="number" min="1" max="2592000" required value=${seconds} onInput=${(e) => setSeconds(e.currentTarget.value)} />
      <button type="submit" disabled=${advance.busy}>Advance clock</button>
    </form>
    <${ErrorNote} error=${advance.error} />
    ${clock
      ? html`<p role="status">The business's clock is now <${When} at=${clock.now} /> (${clock.offset_seconds} seconds ahead).</p>`
      : null}
  </section>`;
}

/** Completes or fails a payout as the bank would. */
function PayoutOutcome({ api }) {
  const decide = useRequest();
  const [form, setForm] = useState({ id: '', status: 'COMPLETED', failure_code: 'REJECTED_BY_BANK' });
  const [payout, setPayout] = useState(null);
  const field = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  async function submit(event) {
    event.preventDefault();
    setPayout(null);
    const body = form.status === 'FAILED' ? { status: 'FAILED', failure_code: form.failure_code } : { status: 'COMPLETED' };
    const moved = await decide.run(() => api.post(`/testhelpers/payouts/${encodeURIComponent(form.id.trim())}/outcome`, body));
    if (moved) setPayout(moved);
  }
  return html`<section aria-labelledby="outcome-title">
    <h3 id="outcome-title">Payout outcome</h3>
    <form onSubmit=${submit}>
      <label for="outcome-payout">Payout id</label>
      <input id="outcome-payout" required maxlength="36" value=${form.id} onInput=${field('id')} />
      <label for="outcome-status">Outcome</label>
      <select id="outcome-status" value=${form.status} onChange=${field('status')}>
        <option value="COMPLETED">COMPLETED (the bank pays the customer)</option>
        <option value="FAILED">FAILED (the bank rejects the payout)</option>
      </select>
      ${form.status === 'FAILED'
        ? html`<label for="outcome-failure">Failure code</label>
            <select id="outcome-failure" value=${form.failure_code} onChange=${field('failure_code')}>
              ${['REJECTED_BY_BANK', 'TIMEOUT', 'RECEIVER_NOT_ACTIVE'].map((c) => html`<option value=${c}>${c}</option>`)}
            </select>`
        : null}
      <button type="submit" disabled=${decide.busy}>Set outcome</button>
    </form>
    <${ErrorNote} error=${decide.error} />
    ${payout ? html`<${PayoutDetail} payout=${payout} />` : null}
  </section>`;
}

/** A card purchase as the card network would ask for it. */
function CardPurchase({ api }) {
  const authorize = useRequest();
  const [form, setForm] = useState({ card_id: '', amount: '', pin: '', merchant_name: '' });
  const [result, setResult] = useState(null);
  const field = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  async function submit(event) {
    event.preventDefault();
    setResult(null);
    const body = { card_id: form.card_id.trim(), amount: form.amount.trim() };
    if (form.pin) body.pin = form.pin;
    if (form.merchant_name.trim()) body.merchant_name = form.merchant_name.trim();
    const answer = await authorize.run(() => api.post('/testhelpers/cards/authorizations', body));
    if (answer) setResult(answer);
  }
  return html`<section aria-labelledby="card-title">
    <h3 id="card-title">Card purchase</h3>
    <form onSubmit=${submit}>
      <label for="card-id">Card id</label>
      <input id="card-id" required maxlength="36" value=${form.card_id} onInput=${field('card_id')} />
      <label for="card-amount">Amount</label>
      <input id="card-amount" required inputmode="decimal" maxlength="18" value=${form.amount} onInput=${field('amount')} />
      <label for="card-pin">PIN (optional)</label>
      <input id="card-pin" type="password" inputmode="numeric" maxlength="4" autocomplete="off" value=${form.pin} onInput=${field('pin')} />
      <label for="card-merchant">Merchant (optional)</label>
      <input id="card-merchant" maxlength="64" value=${form.merchant_name} onInput=${field('merchant_name')} />
      <button type="submit" disabled=${authorize.busy}>Authorize purchase</button>
    </form>
    <${ErrorNote} error=${authorize.error} />
    ${result
      ? html`<p role="status">
          ${result.status}${result.decline_reason ? ` (${result.decline_reason})` : ''}: ${result.amount} ${result.currency}
          ${result.transaction_reference ? `, transaction ${result.transaction_reference}` : ''}
        </p>`
      : null}
  </section>`;
}

function SandboxPage({ api }) {
  return html`<div>
    <${SmsInbox} api=${api} />
    <${Clock} api=${api} />
    <${PayoutOutcome} api=${api} />
    <${CardPurchase} api=${api} />
  </div>`;
}

/** The Sandbox page of the portal: only in the sandbox. */
export const page = { id: 'sandbox', title: 'Sandbox', sandboxOnly: true, component: SandboxPage };
