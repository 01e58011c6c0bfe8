/** The Wallets page (its heading is the shell's). */
import { html } from '../preact-htm.js';

function Wallets() {
  return html`<p>This page is on its way.</p>`;
}

export const page = { id: 'wallets', title: 'Wallets', sandboxOnly: false, component: Wallets };
