/**
 * One correction offered from the object it corrects, in steps: its button; the values it
 * asks for, when it asks for any (checked in the browser, in words, before anything is
 * sent); a review that says exactly what will happen, with every amount normalised and with
 * its currency; then Confirm, which sends it. `onDone(result, text)` runs after a success
 * with what was done in words, so that the page shows the object as it is now and says what
 * changed (useDone: the message outlives the button, which the object's new state may remove).
 *
 * The Idempotency-Key is made when the review opens and sent with each Confirm of that
 * review: an operation that honours it (a money movement, `keyed`) answers a second Confirm
 * after a lost answer, a time-out or a server error with the first attempt's outcome rather
 * than doing it twice; the others set a state, which a second Confirm leaves as it is, and
 * the request log files every attempt under the key. A refusal the service keeps with its
 * key (a problem Retry cannot help, ../problems.js `retryable`) ends that key: the next
 * Confirm, once its cause is fixed, is a new attempt with a new key.
 */
import { html, useState } from '../preact-htm.js';
import { newIdempotencyKey } from '../api.js';
import { Problem } from '../ui.js';
import { retryable } from '../problems.js';
import { useRequest } from '../lists.js';

/**
 * A review's warnings: what the operator should know before confirming (a balance going
 * below zero, a reference used before), which does not stop the Confirm.
 * @param {{ warnings?: string[] }} props
 */
export function Warnings({ warnings }) {
  if (!warnings?.length) return null;
  return html`<div class="warning" role="status"><strong>Check before you confirm</strong>
    <ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`;
}

/**
 * What the corrections of one object did, kept above them: `{ said, onDone }`, `onDone(result,
 * text)` for each Correction (it shows `text` and passes `result` on to `then`), `said` the
 * message to render.
 */
export function useDone(then) {
  const [text, setText] = useState(null);
  return {
    said: text ? html`<div class="done" role="status">${text}</div>` : null,
    onDone: (result, words) => {
      setText(words);
      then?.(result);
    },
  };
}

/** A review's facts, `[[term, description]]`, as a description list named `label`. */
export function Facts({ facts, label }) {
  return html`<dl class="facts" aria-label=${label}>${facts.map(([term, description]) => html`<dt>${term}</dt><dd>${description}</dd>`)}</dl>`;
}

/**
 * A correction's button, then its form (when `fields`), its review and its Confirm.
 * @param {{
 *   id: string,                     unique on the page: its elements' ids start with it
 *   label: string,                  the button's text ("Refund"), also the review's name
 *   danger?: boolean,               the button in the danger style (it ends something)
 *   initial?: object,               the form's values when it opens
 *   fields?: (values: object, set: (name: string) => (value: string) => void, id: string) => any,
 *   check?: (values: object) => string | null,   what is wrong with the values, in words
 *   review: (values: object) => Promise<{ summary: string, facts?: any[][], warnings?: string[] }>,
 *   send: (values: object, key: string) => Promise<any>,
 *   done: (result: any) => any,     what was done, in words
 *   keyed?: boolean,                the operation honours the Idempotency-Key (moves money)
 *   onDone: (result: any, text: any) => void,   useDone's
 * }} props
 */
export function Correction({ id, label, danger, initial = {}, fields, check, review, send, done, keyed, onDone }) {
  const [step, setStep] = useState(null);
  const [values, setValues] = useState(initial);
  const [problem, setProblem] = useState(null);
  const reading = useRequest();
  const sending = useRequest();
  const set = (name) => (value) => setValues({ ...values, [name]: value });

  async function toReview(e) {
    e?.preventDefault();
    const wrong = check?.(values) ?? null;
    setProblem(wrong);
    if (wrong) return;
    sending.setError(null);
    setStep({ name: 'review', key: newIdempotencyKey(), told: null });
    const told = await reading.run(() => review(values));
    if (told) setStep((s) => (s?.name === 'review' ? { ...s, told } : s));
  }
  const open = () => {
    if (step) return setStep(null);
    setValues(initial);
    setProblem(null);
    if (fields) setStep({ name: 'form' });
    else toReview();
  };
  // A refusal the service keeps with the key would be answered again: the next Confirm makes a new key.
  async function confirm() {
    let key = step.key;
    if (sending.error && !retryable(sending.error)) {
      key = newIdempotencyKey();
      setStep({ ...step, key });
    }
    const answer = await sending.run(() => send(values, key));
    if (answer === undefined) return;
    setStep(null);
    onDone(answer, done(answer));
  }
  const reviewId = `${id}-review`;
  return html`<button type="button" class=${danger ? 'danger' : 'secondary'} aria-expanded=${step !== null} aria-controls=${step ? reviewId : undefined}
      onClick=${open}>${label}</button>
    ${step?.name === 'form'
      ? html`<form class="review" id=${reviewId} aria-label=${label} onSubmit=${toReview}>
          ${fields(values, set, id)}
          ${problem ? html`<div class="problem" role="alert">${problem}</div>` : null}
          <div class="actions">
            <button type="submit">Review</button>
            <button type="button" class="secondary" onClick=${() => setStep(null)}>Cancel</button>
          </div>
        </form>`
      : null}
    ${step?.name === 'review'
      ? html`<div class="review" id=${reviewId} role="group" aria-label=${`Review: ${label}`}>
          <${Problem} error=${reading.error} onRetry=${toReview} />
          ${reading.busy ? html`<p role="status">Reading what this will change…</p>` : null}
          ${step.told
            ? html`<p class="confirm"><strong>${step.told.summary}</strong></p>
                ${step.told.facts?.length ? html`<${Facts} facts=${step.told.facts} label=${`What ${label.toLowerCase()} will do`} />` : null}
                <${Warnings} warnings=${step.told.warnings} />`
            : null}
          <p class="muted">Idempotency-Key <code data-field="idempotency-key">${step.key}</code>:
            ${keyed ? ' confirming again after a lost answer does not do it twice.' : ' confirming again sets the same state, which changes nothing more.'}</p>
          <${Problem} error=${sending.error} />
          <div class="actions">
            <button type="button" onClick=${confirm} disabled=${sending.busy || !step.told}>Confirm</button>
            <button type="button" class="secondary" onClick=${() => (fields ? setStep({ name: 'form' }) : setStep(null))} disabled=${sending.busy}>
              ${fields ? 'Edit' : 'Cancel'}</button>
          </div>
        </div>`
      : null}`;
}
