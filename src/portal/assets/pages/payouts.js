/** The Payouts page (its heading is the shell's). */
import { html } from '../preact-htm.js';

function Payouts() {
  return html`<p>This page is on its way.</p>`;
}

export const page = { id: 'payouts', title: 'Payouts', sandboxOnly: false, component: Payouts };
