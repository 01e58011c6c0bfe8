/** The Sandbox page (its heading is the shell's). */
import { html } from '../preact-htm.js';

function Sandbox() {
  return html`<p>This page is on its way.</p>`;
}

export const page = { id: 'sandbox', title: 'Sandbox', sandboxOnly: true, component: Sandbox };
