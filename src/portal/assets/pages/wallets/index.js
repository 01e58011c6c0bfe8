/**
 * Wallets page: a new wallet (closed-loop `createWallet`, by name), the business's wallets
 * (`listWallets`, cursor pages, by status, exact name and exact external reference), a wallet found by its account number
 * (`lookupWallet`), one wallet opened (./detail.js: its transactions and its
 * statement), and the transactions of all wallets (./transactions.js). Money is shown as the service's decimal strings, never as numbers.
 */
import { html, useState } from '../../preact-htm.js';
import { Field, Money, Problem, Table, useSubmit, words } from '../../ui.js';
import { newIdempotencyKey } from '../../api.js';
import { ListPager, When, useFilteredList, useRequest } from '../../lists.js';
import { WalletDetail } from './detail.js';
import { BusinessTransactions } from './transactions.js';

const CL = '/cl/v1';

/** The form for a new wallet (`createWallet`, under an Idempotency-Key of its own): a name; `onCreated(wallet)`. */
function NewWallet({ api, onCreated }) {
  const [name, setName] = useState('');
  const { onSubmit, busy, error } = useSubmit(async () => {
    onCreated(await api.post(`${CL}/wallets`, { name: name.trim() }, { idempotencyKey: newIdempotencyKey() }));
    setName('');
  });
  return html`<form onSubmit=${onSubmit} aria-labelledby="wallet-new-title">
    <h2 id="wallet-new-title">New wallet</h2>
    <${Field} id="wallet-new-name" label="Name" value=${name} onInput=${setName} required />
    <${Problem} error=${error} />
    <button type="submit" disabled=${busy}>Create wallet</button>
  </form>`;
}

/** The page: new wallet and lookup forms, wallet list, and the selected wallet. */
function WalletsPage({ api }) {
  const lookup = useRequest();
  const [accountNumber, setAccountNumber] = useState('');
  const [selected, setSelected] = useState(null);
  const query = (f, cursor) => ({ status: f.status || undefined, name: f.name.trim() || undefined, external_reference: f.reference.trim() || undefined, cursor });
  const list = useFilteredList((f, cursor) => api.get(`${CL}/wallets`, { query: query(f, cursor) }), { status: '', name: '', reference: '' });
  const { page, form, setForm } = list;

  async function find(event) {
    event.preventDefault();
    const wallet = await lookup.run(() => api.get(`${CL}/wallets/lookup`, { query: { account_number: accountNumber.trim() } }));
    if (wallet) setSelected(wallet);
  }

  const created = (wallet) => {
    setSelected(wallet);
    list.first();
  };

  return html`<div>
    ${api.can('wallets:write') ? html`<${NewWallet} api=${api} onCreated=${created} />` : null}
    <form onSubmit=${find} aria-labelledby="wallet-lookup-title">
      <h2 id="wallet-lookup-title">Find a wallet</h2>
      <label for="wallet-account-number">Account number</label>
      <input
        id="wallet-account-number"
        name="account_number"
        inputmode="numeric"
        pattern="[0-9]{12}"
        maxlength="12"
        required
        value=${accountNumber}
        onInput=${(e) => setAccountNumber(e.currentTarget.value)}
      />
      <button type="submit" disabled=${lookup.busy}>Find</button>
      <${Problem} error=${lookup.error} />
    </form>
    ${selected ? html`<${WalletDetail} key=${selected.id} api=${api} wallet=${selected} onClose=${() => setSelected(null)} onChanged=${(w) => (setSelected(w), list.retry())} />` : null}
    <section aria-labelledby="wallet-list-title">
      <h2 id="wallet-list-title">All wallets</h2>
      <form class="filters" onSubmit=${list.apply} aria-label="Wallet filters">
        <div class="field"><label for="wallets-status">Status</label>
          <select id="wallets-status" value=${form.status} onChange=${list.field('status')}>
            <option value="">Any status</option>
            ${['ACTIVE', 'SUSPENDED', 'CLOSED'].map((s) => html`<option value=${s}>${words(s)}</option>`)}
          </select></div>
        <${Field} id="wallets-name" label="Name (exact)" value=${form.name} onInput=${(v) => setForm({ ...form, name: v })} />
        <${Field} id="wallets-reference" label="External reference (exact)" value=${form.reference} onInput=${(v) => setForm({ ...form, reference: v })} />
        <button type="submit" disabled=${list.busy}>Show wallets</button>
      </form>
      <${Problem} error=${list.error} onRetry=${list.retry} />
      ${page
        ? html`<${Table}
            caption="Wallets, newest first"
            empty="No wallets match."
            rows=${page.data}
            rowKey=${(w) => w.id}
            columns=${[
              { title: 'Account number', render: (w) => w.account_number },
              { title: 'Name', render: (w) => w.name ?? '—' },
              { title: 'Status', render: (w) => words(w.status) },
              { title: 'Balance', num: true, render: (w) => html`<${Money} amount=${w.balance} currency=${w.currency} />` },
              { title: 'Created', render: (w) => html`<${When} at=${w.created_at} />` },
              {
                title: 'Open',
                render: (w) => html`<button type="button" onClick=${() => setSelected(w)} aria-label=${`Open wallet ${w.account_number}`}>Open</button>`,
              },
            ]}
          />
          <${ListPager} list=${list} label="Wallets" />`
        : list.busy
          ? html`<p>Loading…</p>`
          : null}
    </section>
    <${BusinessTransactions} api=${api} />
  </div>`;
}

/** The Wallets page of the portal. */
export const page = { id: 'wallets', title: 'Wallets', sandboxOnly: false, permission: 'wallets:read', component: WalletsPage };
