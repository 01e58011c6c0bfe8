/**
 * Wallets page: the business's wallets (closed-loop `listWallets`, cursor pages), a wallet
 * found by its account number (`lookupWallet`), its ledger transactions
 * (`listWalletTransactions`) and its statement as a CSV file (`getWalletStatementCsv`,
 * `Accept: text/csv`). Money is shown as the service's decimal strings, never as numbers.
 */
import { html, useState, useEffect } from '../preact-htm.js';
import { Problem, Table, formatMoney } from '../ui.js';
import { Pager, When, useRequest } from './wallets-view.js';
import { downloadText } from './wallets-download.js';

const CL = '/cl/v1';

/** One wallet's details, its transactions and its statement download. */
function WalletDetail({ api, wallet, onClose }) {
  const list = useRequest();
  const statement = useRequest();
  const [page, setPage] = useState(null);
  const [saved, setSaved] = useState(null);

  const load = (cursor) =>
    list.run(async () => setPage(await api.get(`${CL}/wallets/${wallet.id}/transactions`, { query: cursor ? { cursor } : {} })));
  useEffect(() => {
    setPage(null);
    setSaved(null);
    load();
  }, [wallet.id]);

  async function download() {
    const csv = await statement.run(() => api.text(`${CL}/wallets/${wallet.id}/statement.csv`, { accept: 'text/csv' }));
    if (csv === undefined) return;
    const name = `statement-${wallet.account_number}.csv`;
    downloadText(name, csv);
    setSaved(name);
  }

  return html`<section aria-labelledby="wallet-detail-title">
    <h2 id="wallet-detail-title">Wallet ${wallet.account_number}</h2>
    <dl>
      <dt>Name</dt><dd>${wallet.name ?? '—'}</dd>
      <dt>Status</dt><dd>${wallet.status}</dd>
      <dt>Balance</dt><dd>${formatMoney(wallet.balance, wallet.currency)}</dd>
      <dt>External reference</dt><dd>${wallet.external_reference ?? '—'}</dd>
      <dt>Created</dt><dd><${When} at=${wallet.created_at} /></dd>
    </dl>
    <p>
      <button type="button" onClick=${download} disabled=${statement.busy}>Download statement (CSV)</button>
      ${' '}<button type="button" onClick=${onClose}>Close wallet</button>
    </p>
    ${saved ? html`<p role="status">Saved ${saved}.</p>` : null}
    <${Problem} error=${statement.error} />
    <${Problem} error=${list.error} />
    ${page
      ? html`<${Table}
          caption="Transactions"
          empty="No transactions yet."
          rows=${page.data}
          rowKey=${(t) => t.id}
          columns=${[
            { title: 'Reference', render: (t) => t.reference },
            { title: 'Type', render: (t) => t.type },
            { title: 'Status', render: (t) => t.status },
            { title: 'Direction', render: (t) => t.entries?.find((e) => e.account_number === wallet.account_number)?.direction ?? '—' },
            { title: 'Amount', render: (t) => formatMoney(t.amount, t.currency) },
            { title: 'Created', render: (t) => html`<${When} at=${t.created_at} />` },
          ]}
        />
        <${Pager} page=${page} label="Transactions" busy=${list.busy} onFirst=${() => load()} onNext=${load} />`
      : null}
  </section>`;
}

/** The page: lookup form, wallet list, and the selected wallet. */
function WalletsPage({ api }) {
  const list = useRequest();
  const lookup = useRequest();
  const [page, setPage] = useState(null);
  const [accountNumber, setAccountNumber] = useState('');
  const [selected, setSelected] = useState(null);

  const load = (cursor) => list.run(async () => setPage(await api.get(`${CL}/wallets`, { query: cursor ? { cursor } : {} })));
  useEffect(() => {
    load();
  }, []);

  async function find(event) {
    event.preventDefault();
    const wallet = await lookup.run(() => api.get(`${CL}/wallets/lookup`, { query: { account_number: accountNumber.trim() } }));
    if (wallet) setSelected(wallet);
  }

  return html`<div>
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
    ${selected ? html`<${WalletDetail} api=${api} wallet=${selected} onClose=${() => setSelected(null)} />` : null}
    <section aria-labelledby="wallet-list-title">
      <h2 id="wallet-list-title">All wallets</h2>
      <${Problem} error=${list.error} />
      ${page
        ? html`<${Table}
            caption="Wallets, newest first"
            empty="No wallets yet."
            rows=${page.data}
            rowKey=${(w) => w.id}
            columns=${[
              { title: 'Account number', render: (w) => w.account_number },
              { title: 'Name', render: (w) => w.name ?? '—' },
              { title: 'Status', render: (w) => w.status },
              { title: 'Balance', render: (w) => formatMoney(w.balance, w.currency) },
              { title: 'Created', render: (w) => html`<${When} at=${w.created_at} />` },
              {
                title: 'Open',
                render: (w) => html`<button type="button" onClick=${() => setSelected(w)} aria-label=${`Open wallet ${w.account_number}`}>Open</button>`,
              },
            ]}
          />
          <${Pager} page=${page} label="Wallets" busy=${list.busy} onFirst=${() => load()} onNext=${load} />`
        : list.busy
          ? html`<p>Loading…</p>`
          : null}
    </section>
  </div>`;
}

/** The Wallets page of the portal. */
export const page = { id: 'wallets', title: 'Wallets', sandboxOnly: false, component: WalletsPage };
