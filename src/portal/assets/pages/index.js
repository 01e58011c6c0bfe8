/**
 * The portal's pages in navigation order. Each page's module exports
 * `page = { id, title, sandboxOnly, permission?, component }` (`permission`: the one its list
 * needs; the page is shown only to a user whose session holds it, as `PortalSession.permissions` says);
 * `component` receives `{ api, session }`
 * (see ../api.js and ../app.js). The shell renders the page's title as its `h1` and moves
 * focus there on navigation: a page's own headings start at `h2`.
 *
 * A page of one module is a file here (`events.js`); a page of several is a folder named
 * after the page's id, entered by its `index.js` (`payouts/index.js`, with `payouts/list.js`,
 * `payouts/bulk.js`, …). What pages share sits beside the shell in the assets folder:
 * ../ui.js (Problem, Table, RowToggle, Field, formatMoney, formatTime, useLoad, useSubmit),
 * ../lists.js (ListPager, useFilteredList, useRequest, When, PER_PAGE) and ../download.js
 * (downloadText). The service serves every `.js` and `.css` file under the assets folder,
 * folders included, at the same path below `/portal/assets/` (src/portal/portal.ts).
 */
import { page as overview } from './overview/index.js';
import { page as moveMoney } from './move-money/index.js';
import { page as customers } from './customers.js';
import { page as wallets } from './wallets/index.js';
import { page as webhooks } from './webhooks/index.js';
import { page as events } from './events.js';
import { page as payouts } from './payouts/index.js';
import { page as apiKeys } from './api-keys.js';
import { page as team } from './team.js';
import { page as auditLog } from './audit-log.js';
import { page as requests } from './requests.js';
import { page as sandbox } from './sandbox.js';

export const pages = [overview, moveMoney, payouts, wallets, customers, webhooks, events, team, apiKeys, requests, auditLog, sandbox];
