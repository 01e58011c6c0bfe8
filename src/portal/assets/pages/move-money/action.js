/**
 * One money movement on the Move money page, in three steps: the form, a confirmation that
 * reads back what will happen, then the service's answer with a link to where the result
 * is listed. The Idempotency-Key is made when the user asks to review (one per attempt):
 * confirming again after a lost answer sends the same key, so the service answers the same
 * movement instead of making a second; editing the form makes a new attempt and a new key.
 *
 * The confirmation is read from the API when the user asks to review (`review`): the
 * receiver's name and account, the amount normalised with its currency, each balance after,
 * and warnings that do not block (../../corrections/movement.js). An amount the ledger would
 * refuse is said in words before anything is read or sent.
 *
 * An action is described by a spec: `{ id, title, intro?, fields, review(api, values, wallets)
 * → Promise<{ summary, facts, warnings }>, send(api, values, key), result(answer) }`; `fields`
 * are `{ name, label, kind: 'amount' | 'wallet' | 'text', hint?, optional? }`; an amount
 * field's value reaches `review` and `send` normalised (../../amounts.js typedAmount).
 */
import { html, useState } from '../../preact-htm.js';
import { newIdempotencyKey } from '../../api.js';
import { Field, Problem, formatMoney } from '../../ui.js';
import { useRequest } from '../../lists.js';
import { amountProblem, typedAmount } from '../../amounts.js';
import { Facts, Warnings } from '../../corrections/review.js';

/** A wallet as a choice: "900000000019 · Payroll · 250.00 SAR". */
export const walletLabel = (w) => `${w.account_number} · ${w.name ?? 'No name'} · ${formatMoney(w.balance, w.currency)}`;

/** A select of the business's wallets. */
function WalletField({ id, label, value, onInput, wallets }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} required value=${value} onChange=${(e) => onInput(e.currentTarget.value)}>
      <option value="">Choose a wallet</option>
      ${wallets.map((w) => html`<option value=${w.id}>${walletLabel(w)}</option>`)}
    </select>
  </div>`;
}

/** The form, the confirmation and the result of one action `spec`; `wallets` for wallet fields; `onDone` after a success. */
export function MoneyAction({ api, spec, wallets, onDone }) {
  const empty = Object.fromEntries(spec.fields.map((f) => [f.name, '']));
  const [values, setValues] = useState(empty);
  const [review, setReview] = useState(null);
  const [answer, setAnswer] = useState(null);
  const send = useRequest();
  const reading = useRequest();
  const [problem, setProblem] = useState(null);
  const set = (name) => (value) => setValues({ ...values, [name]: value });
  const prefix = `${spec.id}-`;

  const toReview = async (e) => {
    e?.preventDefault();
    const amounts = spec.fields.filter((f) => f.kind === 'amount');
    const wrong = amounts.map((f) => amountProblem(values[f.name])).find(Boolean) ?? null;
    setProblem(wrong);
    if (wrong) return;
    const normal = { ...values, ...Object.fromEntries(amounts.map((f) => [f.name, typedAmount(values[f.name])])) };
    const key = newIdempotencyKey();
    setReview({ values: normal, key, told: null });
    const told = await reading.run(() => spec.review(api, normal, wallets));
    if (told) setReview((r) => (r?.key === key ? { ...r, told } : r));
  };
  const confirm = async () => {
    const done = await send.run(() => spec.send(api, review.values, review.key));
    if (done === undefined) return;
    setAnswer(done);
    setReview(null);
    setValues(empty);
    onDone?.();
  };
  const title = `${prefix}title`;
  return html`<section class="card" aria-labelledby=${title}>
    <h2 id=${title}>${spec.title}</h2>
    ${spec.intro ? html`<p class="muted">${spec.intro}</p>` : null}
    ${review
      ? html`<div role="group" aria-label=${`Confirm: ${spec.title}`}>
          <${Problem} error=${reading.error} onRetry=${toReview} />
          ${reading.busy ? html`<p role="status">Reading the balances…</p>` : null}
          ${review.told
            ? html`<p class="confirm"><strong>${review.told.summary}</strong></p>
                <${Facts} facts=${review.told.facts} label=${`What ${spec.title.toLowerCase()} will do`} />
                <${Warnings} warnings=${review.told.warnings} />`
            : null}
          <p class="muted">Idempotency-Key <code>${review.key}</code>: confirming again after a lost answer does not move the money twice.</p>
          <${Problem} error=${send.error} />
          <div class="actions">
            <button type="button" onClick=${confirm} disabled=${send.busy || !review.told}>Confirm</button>
            <button type="button" class="secondary" onClick=${() => setReview(null)} disabled=${send.busy}>Edit</button>
          </div>
        </div>`
      : html`<form onSubmit=${toReview}>
          ${spec.fields.map((f) =>
            f.kind === 'wallet'
              ? html`<${WalletField} id=${prefix + f.name} label=${f.label} value=${values[f.name]} onInput=${set(f.name)} wallets=${wallets} />`
              : html`<${Field} id=${prefix + f.name} label=${f.label} value=${values[f.name]} onInput=${set(f.name)}
                  required=${!f.optional} hint=${f.hint ?? (f.kind === 'amount' ? 'A decimal string, e.g. 25.00' : undefined)} />`,
          )}
          ${problem ? html`<div class="problem" role="alert">${problem}</div>` : null}
          <button type="submit">Review</button>
        </form>`}
    ${answer ? html`<div class="done" role="status">${spec.result(answer)}</div>` : null}
  </section>`;
}
