/**
 * The portal's pages in navigation order. Each module exports
 * `page = { id, title, sandboxOnly, component }`; `component` receives `{ api, session }`
 * (see ../api.js and ../app.js). The shell renders the page's title as its `h1` and moves
 * focus there on navigation: a page's own headings start at `h2`. Shared components are
 * in ../ui.js (Problem, Table, RowToggle, Field, formatMoney, formatTime, useLoad, useSubmit).
 * File names are lowercase letters, digits and hyphens (`webhook-endpoint.js`): the service
 * serves only such names (`/portal/assets/pages/{page_name}`, openapi/core.yaml).
 */
import { page as overview } from './overview.js';
import { page as moveMoney } from './move-money.js';
import { page as customers } from './customers.js';
import { page as wallets } from './wallets.js';
import { page as webhooks } from './webhooks.js';
import { page as events } from './events.js';
import { page as payouts } from './payouts.js';
import { page as sandbox } from './sandbox.js';

export const pages = [overview, moveMoney, payouts, wallets, customers, webhooks, events, sandbox];
