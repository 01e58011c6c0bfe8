/**
 * Approvals on the Payouts page: the payouts and bulk payouts waiting for a second person
 * (core `listPayoutApprovals`, `PENDING`), each with its maker, amount and receiver, and, for a
 * user who may decide them (`payouts:write`) and did not make them, Approve (confirming the
 * request's amount: `approvePayoutApproval`, which asks for a recent authenticator code from
 * PORTAL_REAUTHENTICATION_AMOUNT on) and Reject with a reason (`rejectPayoutApproval`). The
 * maker is offered neither: the service refuses a maker's approval (MAKER_CANNOT_APPROVE).
 */
import { html, useState } from '../../preact-htm.js';
import { ActorName } from '../../creator.js';
import { When, useRequest } from '../../lists.js';
import { normalAmount } from '../overview/settings.js';
import { Field, Id, Money, Problem, Table, plural, useLoad } from '../../ui.js';

/** Who receives a request: a payout's receiver as given, or a bulk payout's count. */
function receiverOf(approval) {
  const p = approval.payout;
  if (!p) return `${plural(approval.item_count, 'payout')} of a bulk file`;
  if (p.wallet_account_number) return `Wallet ${p.wallet_account_number}`;
  if (p.mobile_number) return `Mobile number ${p.mobile_number}`;
  return `Customer ${p.customer_id}`;
}

/** Whether `actor` is the signed-in user. */
const isMe = (session, actor) => actor.type === 'user' && actor.id === session.user.id;

/** Approve and Reject of one waiting request; `onDecided(answer)` after either. */
function Decide({ api, approval, onDecided }) {
  const send = useRequest();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const id = approval.payout_approval_id;
  const approve = async () => {
    const done = await send.run(() => api.post(`/payout-approvals/${id}/approve`, { amount: approval.amount }));
    if (done) onDecided(done);
  };
  const reject = async (e) => {
    e.preventDefault();
    const done = await send.run(() => api.post(`/payout-approvals/${id}/reject`, { reason: reason.trim() }));
    if (done) onDecided(done);
  };
  return html`<div>
    ${rejecting
      ? html`<form onSubmit=${reject}>
          <${Field} id=${`reject-${id}`} label="Why reject it?" required value=${reason} onInput=${setReason} />
          <div class="actions">
            <button type="submit" disabled=${send.busy || reason.trim() === ''}>Reject</button>
            <button type="button" class="secondary" onClick=${() => setRejecting(false)}>Keep it waiting</button>
          </div>
        </form>`
      : html`<div class="actions">
          <button type="button" onClick=${approve} disabled=${send.busy}>Approve</button>
          <button type="button" class="secondary" onClick=${() => setRejecting(true)} disabled=${send.busy}>Reject…</button>
        </div>`}
    <${Problem} error=${send.error} />
  </div>`;
}

/** What a decision did, in words. */
function decision(answer) {
  if (answer.status === 'APPROVED' && answer.payout_id) return html`Approved: payout <${Id} value=${answer.payout_id} label="payout id" /> is made.`;
  if (answer.status === 'APPROVED') return html`Approved: bulk payout <${Id} value=${answer.bulk_payout_id} label="bulk payout id" /> is made.`;
  if (answer.status === 'FAILED') return `Approved, but the payout was refused: ${answer.failure_detail}`;
  return `Rejected: ${answer.rejection_reason}`;
}

/** The approvals waiting, as a section of the Payouts page. */
export function PayoutApprovals({ api, session }) {
  const waiting = useLoad(() => api.get('/payout-approvals', { query: { status: 'PENDING', limit: 50 } }), [api]);
  const [last, setLast] = useState(null);
  const decides = api.can('payouts:write');
  const decided = (answer) => {
    setLast(answer);
    waiting.reload();
  };
  const columns = [
    { key: 'created_at', title: 'Requested', render: (a) => html`<${When} at=${a.created_at} />` },
    { key: 'maker', title: 'Requested by', render: (a) => (isMe(session, a.created_by) ? 'You' : html`<${ActorName} api=${api} actor=${a.created_by} />`) },
    { key: 'amount', title: 'Amount', num: true, render: (a) => html`<${Money} amount=${a.amount} currency=${a.currency} />` },
    { key: 'receiver', title: 'Receiver', render: receiverOf },
    {
      key: 'decide',
      title: 'Decision',
      render: (a) =>
        !decides
          ? 'Waiting for an approver'
          : isMe(session, a.created_by)
            ? 'Waiting for another person: you made it'
            : html`<${Decide} api=${api} approval=${a} onDecided=${decided} />`,
    },
  ];
  return html`<section aria-labelledby="approvals-title">
    <h2 id="approvals-title">Waiting for approval</h2>
    <p class="muted">Payouts from the business’s approval amount, and bulk payouts when it requires it, are made once a second person approves them.</p>
    ${last ? html`<p role="status" class="done">${decision(last)}</p>` : null}
    <${Problem} error=${waiting.error} onRetry=${waiting.reload} />
    ${waiting.data
      ? html`<${Table} columns=${columns} rows=${waiting.data.data} rowKey=${(a) => a.payout_approval_id} caption="Payouts waiting for approval" empty="Nothing waits for approval." />`
      : waiting.loading
        ? html`<p role="status">Loading the approvals…</p>`
        : null}
  </section>`;
}

/** Whether amount `a` is at least `b`, both as typed or as the documents write them (decimal strings, never numbers). */
function atLeast(a, b) {
  const [x, y] = [normalAmount(a), normalAmount(b)];
  if (x === null || y === null) return false;
  const [xi, xf] = x.split('.');
  const [yi, yf] = y.split('.');
  const [xs, ys] = [xi.replace(/^0+(?=\d)/, ''), yi.replace(/^0+(?=\d)/, '')];
  return xs.length !== ys.length ? xs.length > ys.length : xs !== ys ? xs > ys : xf >= yf;
}

/**
 * Whether `business`'s rules (its `payout_approval_threshold`, `bulk_payout_approval`) send a
 * payout of `amounts` (one, or a bulk file's when `bulk`) for approval, as the service decides it.
 */
export function needsApproval(business, amounts, bulk = false) {
  if (bulk && business.bulk_payout_approval) return true;
  const threshold = business.payout_approval_threshold;
  return threshold != null && amounts.some((a) => a !== undefined && atLeast(a, threshold));
}

/** Whether `err` is the service refusing a payout that its business's rules send for approval. */
export const approvalRequired = (err) => err?.status === 403 && /\/payout-approvals/.test(err.detail ?? '');

/** What the operator reads once a payout was sent for approval (`approval`: createPayoutApproval's answer). */
export const SentForApproval = ({ approval }) => html`<p>
  Sent for approval: <${Money} amount=${approval.amount} currency=${approval.currency} /> waits for a second person to approve it (request${' '}
  <${Id} value=${approval.payout_approval_id} label="approval request id" />). <a href="#payouts">See it on the Payouts page</a>
</p>`;
