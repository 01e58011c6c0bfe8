/**
 * The business's display settings, changed with `updateBusiness` (a portal user is asked for a
 * recent authenticator code, as for every business setting): the time zone every date of the
 * portal is shown in (`time_zone`, IANA names) and the payout account's low-balance threshold
 * (`payout_low_balance_threshold`: below it the Overview warns; empty for no warning), and
 * the second pair of eyes on payouts: the amount from which a payout needs an approval
 * (`payout_approval_threshold`; empty for none) and whether every bulk payout does
 * (`bulk_payout_approval`).
 */
import { html, useState } from '../../preact-htm.js';
import { Field, Problem, setTimeZone, useSubmit } from '../../ui.js';

/** The IANA zones this browser knows, UTC first. */
const ZONES = ['UTC', ...(Intl.supportedValuesOf?.('timeZone') ?? []).filter((z) => z !== 'UTC')];

/** An amount typed by a person ("1,500" or "1500.5") as the documents' Amount ("1500.50"), or null when it is not one. */
export function normalAmount(text) {
  const plain = String(text).trim().replace(/,/g, '');
  const m = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(plain);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(2, '0')}` : null;
}

/** The form, inside the Overview's facts; `onSaved(business)` with the business as it is now. */
export function BusinessSettings({ api, business, onSaved }) {
  const [zone, setZone] = useState(business.time_zone);
  const [threshold, setThreshold] = useState(business.payout_low_balance_threshold ?? '');
  const [approvalFrom, setApprovalFrom] = useState(business.payout_approval_threshold ?? '');
  const [bulkApproval, setBulkApproval] = useState(business.bulk_payout_approval);
  const [saved, setSaved] = useState(false);
  const [invalid, setInvalid] = useState(null);
  const { onSubmit, busy, error } = useSubmit(async () => {
    setSaved(false);
    const amount = threshold.trim() === '' ? null : normalAmount(threshold);
    if (threshold.trim() !== '' && amount === null) {
      setInvalid('Enter an amount such as 5000.00, or leave it empty for no warning.');
      return;
    }
    const approvalAmount = approvalFrom.trim() === '' ? null : normalAmount(approvalFrom);
    if (approvalFrom.trim() !== '' && approvalAmount === null) {
      setInvalid('Enter an approval amount such as 10000.00, or leave it empty for no approvals.');
      return;
    }
    setInvalid(null);
    const updated = await api.patch(`/cl/v1/businesses/${business.id}`, {
      time_zone: zone,
      payout_low_balance_threshold: amount,
      payout_approval_threshold: approvalAmount,
      bulk_payout_approval: bulkApproval,
    });
    setTimeZone(updated.time_zone);
    setThreshold(updated.payout_low_balance_threshold ?? '');
    setApprovalFrom(updated.payout_approval_threshold ?? '');
    setBulkApproval(updated.bulk_payout_approval);
    setSaved(true);
    onSaved?.(updated);
  });
  return html`<form class="card" onSubmit=${onSubmit} aria-labelledby="settings-heading">
    <h3 id="settings-heading">Settings</h3>
    <div class="field">
      <label for="time-zone">Time zone for dates</label>
      <select id="time-zone" value=${zone} onChange=${(e) => { setZone(e.currentTarget.value); setSaved(false); }}>
        ${ZONES.map((z) => html`<option key=${z} value=${z}>${z}</option>`)}
      </select>
    </div>
    <${Field} id="low-balance" label=${`Warn when the payout account is below (${business.currency})`} value=${threshold}
      onInput=${(v) => { setThreshold(v); setSaved(false); }} hint="Leave empty for no warning." />
    <${Field} id="approval-from" label=${`Payouts need a second person’s approval from (${business.currency})`} value=${approvalFrom}
      onInput=${(v) => { setApprovalFrom(v); setSaved(false); }} hint="Leave empty for no approvals." />
    <div class="field check">
      <input id="bulk-approval" type="checkbox" checked=${bulkApproval} onChange=${(e) => { setBulkApproval(e.currentTarget.checked); setSaved(false); }} />
      <label for="bulk-approval">Every bulk payout needs a second person’s approval</label>
    </div>
    ${invalid ? html`<p class="problem" role="alert">${invalid}</p>` : null}
    <button type="submit" class="secondary" disabled=${busy}>Save settings</button>
    ${saved ? html`<p role="status">Settings saved.</p>` : null}
    <${Problem} error=${error} />
  </form>`;
}
