/**
 * Sandbox page (shown only when the session is the sandbox's): the core API's test helpers
 * a tester needs by hand. The SMS inbox (`listSandboxSmsMessages`: how a one-time code is
 * read), the business's clock (`advanceSandboxClock`), a payout's outcome as the bank would
 * answer it (`setSandboxPayoutOutcome`) and a card purchase from the card network simulator
 * (`simulateCardAuthorization`).
 */
import { html, useState } from '../preact-htm.js';
import { PayoutDetail } from './payouts/list.js';
import { Field, Problem, Table, formatMoney, words } from '../ui.js';
import { ListPager, When, useFilteredList, useRequest } from '../lists.js';

/** The SMS messages sent for the business, newest first, optionally to one number. */
function SmsInbox({ api }) {
  const query = (f, cursor) => ({ mobile_number: f.number.trim() || undefined, cursor });
  const list = useFilteredList((f, cursor) => api.get('/testhelpers/sms-messages', { query: query(f, cursor) }), { number: '' });
  const { page, form, setForm } = list;

  return html`<section aria-labelledby="sms-title">
    <h2 id="sms-title">SMS inbox</h2>
    <form onSubmit=${list.apply}>
      <${Field} id="sms-number" label="Mobile number (optional)" value=${form.number} onInput=${(v) => setForm({ number: v })} hint="Digits with the country code" />
      <button type="submit" disabled=${list.busy}>Show messages</button>
    </form>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="SMS messages, newest first"
          rows=${page.data}
          rowKey=${(m) => m.id}
          empty="No SMS messages."
          columns=${[
            { title: 'To', render: (m) => m.mobile_number },
            { title: 'Text', render: (m) => m.text },
            { title: 'Sent', render: (m) => html`<${When} at=${m.created_at} />` },
          ]}
        />
        <${ListPager} list=${list} label="SMS messages" />`
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
    <h2 id="clock-title">Business clock</h2>
    <form onSubmit=${submit}>
      <label for="clock-seconds">Seconds to move forward</label>
      <input id="clock-seconds" type="number" min="1" max="2592000" required value=${seconds} onInput=${(e) => setSeconds(e.currentTarget.value)} />
      <button type="submit" disabled=${advance.busy}>Advance clock</button>
    </form>
    <${Problem} error=${advance.error} />
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
  const field = (name) => (value) => setForm({ ...form, [name]: value });
  async function submit(event) {
    event.preventDefault();
    setPayout(null);
    const body = form.status === 'FAILED' ? { status: 'FAILED', failure_code: form.failure_code } : { status: 'COMPLETED' };
    const moved = await decide.run(() => api.post(`/testhelpers/payouts/${encodeURIComponent(form.id.trim())}/outcome`, body));
    if (moved) setPayout(moved);
  }
  return html`<section aria-labelledby="outcome-title">
    <h2 id="outcome-title">Payout outcome</h2>
    <form onSubmit=${submit}>
      <${Field} id="outcome-payout" label="Payout id" required value=${form.id} onInput=${field('id')} />
      <label for="outcome-status">Outcome</label>
      <select id="outcome-status" value=${form.status} onChange=${(e) => field('status')(e.currentTarget.value)}>
        <option value="COMPLETED">Completed (the bank pays the customer)</option>
        <option value="FAILED">Failed (the bank rejects the payout)</option>
      </select>
      ${form.status === 'FAILED'
        ? html`<label for="outcome-failure">Failure code</label>
            <select id="outcome-failure" value=${form.failure_code} onChange=${(e) => field('failure_code')(e.currentTarget.value)}>
              ${['REJECTED_BY_BANK', 'TIMEOUT', 'RECEIVER_NOT_ACTIVE'].map((c) => html`<option value=${c}>${words(c)}</option>`)}
            </select>`
        : null}
      <button type="submit" disabled=${decide.busy}>Set outcome</button>
    </form>
    <${Problem} error=${decide.error} />
    ${payout ? html`<${PayoutDetail} payout=${payout} />` : null}
  </section>`;
}

/** A card purchase as the card network would ask for it. */
function CardPurchase({ api }) {
  const authorize = useRequest();
  const [form, setForm] = useState({ card_id: '', amount: '', pin: '', merchant_name: '' });
  const [result, setResult] = useState(null);
  const field = (name) => (value) => setForm({ ...form, [name]: value });
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
    <h2 id="card-title">Card purchase</h2>
    <form onSubmit=${submit}>
      <${Field} id="card-id" label="Card id" required value=${form.card_id} onInput=${field('card_id')} hint="A customer’s cards and their ids are on the Customers page" />
      <${Field} id="card-amount" label="Amount" required value=${form.amount} onInput=${field('amount')} hint="A decimal string, e.g. 25.00" />
      <${Field} id="card-pin" label="PIN (optional)" type="password" value=${form.pin} onInput=${field('pin')} />
      <${Field} id="card-merchant" label="Merchant (optional)" value=${form.merchant_name} onInput=${field('merchant_name')} />
      <button type="submit" disabled=${authorize.busy}>Authorize purchase</button>
    </form>
    <${Problem} error=${authorize.error} />
    ${result
      ? html`<p role="status">
          ${words(result.status)}${result.decline_reason ? ` (${words(result.decline_reason).toLowerCase()})` : ''}: ${formatMoney(result.amount, result.currency)}
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
export const page = { id: 'sandbox', title: 'Sandbox', sandboxOnly: true, permission: 'sandbox:simulate', component: SandboxPage };
