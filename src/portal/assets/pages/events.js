/** The Events page (its heading is the shell's). */
import { html } from '../preact-htm.js';

function Events() {
  return html`<p>This page is on its way.</p>`;
}

export const page = { id: 'events', title: 'Events', sandboxOnly: false, component: Events };
