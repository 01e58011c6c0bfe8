/** The Webhooks page (its heading is the shell's). */
import { html } from '../preact-htm.js';

function Webhooks() {
  return html`<p>This page is on its way.</p>`;
}

export const page = { id: 'webhooks', title: 'Webhooks', sandboxOnly: false, component: Webhooks };
