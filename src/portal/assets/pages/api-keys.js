/**
 * API keys page (developers): the business's keys (core `listApiKeys`, cursor pages) with
 * what each may do and when its secret last took a token; a new key with a role
 * (`createApiKey`, its secret shown this once), a key's secret rolled with an overlap
 * (`rollApiKeySecret`) and a key revoked (`revokeApiKey`). The service refuses what the
 * signed-in key or user may not do (403, shown as the problem it words); the page hides nothing
 * itself. docs/api-keys.md has the permissions of each role.
 */
import { html, useState } from '../preact-htm.js';
import { CopyButton, Field, Id, Problem, Table, words } from '../ui.js';
import { ListPager, When, useFilteredList, useRequest } from '../lists.js';
import { newIdempotencyKey } from '../api.js';
import { CreatedBy } from '../creator.js';

/** The roles of shared.yaml Role, in the order an owner grants them least to most. */
const ROLES = ['viewer', 'support', 'finance', 'developer', 'admin', 'owner'];

/** The overlaps a roll offers, in seconds (ApiKeySecretRollRequest: 0 to 604800). */
const OVERLAPS = [
  ['0', 'None: the old secret stops now'],
  ['3600', 'One hour'],
  ['86400', '24 hours'],
  ['604800', 'Seven days'],
];

/** The secret a create or a roll answered, with its copy button: shown this once. */
function NewSecret({ shown, onDone }) {
  return html`<section class="notice" role="status" aria-labelledby="new-secret-title">
    <h2 id="new-secret-title">${shown.title}</h2>
    <p>Copy the secret now: the service keeps only its hash and shows it this once.</p>
    <p>Client ID <${Id} value=${shown.key.client_id} label="client id" /></p>
    <p>Client secret <span class="id"><code>${shown.key.client_secret}</code> <${CopyButton} text=${shown.key.client_secret} label="Copy the client secret" /></span></p>
    <button type="button" class="secondary" onClick=${onDone}>I have copied it</button>
  </section>`;
}

/** The form for a new key: a name and a role. */
function CreateKey({ api, onCreated }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const request = useRequest();
  const create = (e) => {
    e.preventDefault();
    request.run(async () => {
      const key = await api.post('/api-keys', { name: name.trim(), role }, { idempotencyKey: newIdempotencyKey() });
      setName('');
      onCreated(key);
    });
  };
  return html`<form onSubmit=${create} aria-labelledby="new-key-title">
    <h2 id="new-key-title">New API key</h2>
    <${Field} id="key-name" label="Name" value=${name} onInput=${setName} required hint="For people: what uses it, e.g. Reporting job." />
    <label for="key-role">Role</label>
    <select id="key-role" value=${role} onChange=${(e) => setRole(e.currentTarget.value)}>
      ${ROLES.map((r) => html`<option value=${r}>${words(r)}</option>`)}
    </select>
    <${Problem} error=${request.error} />
    <button type="submit" disabled=${request.busy}>Create key</button>
  </form>`;
}

/** A key's roll and revoke, and who created it, below its row. */
function KeyActions({ api, apiKey, onRolled, onChanged }) {
  const [overlap, setOverlap] = useState('86400');
  const request = useRequest();
  const roll = () =>
    request.run(async () => onRolled(await api.post(`/api-keys/${apiKey.id}/secret-rolls`, { previous_secret_valid_seconds: Number(overlap) })));
  const revoke = () =>
    request.run(async () => {
      await api.del(`/api-keys/${apiKey.id}`);
      onChanged();
    });
  const label = apiKey.name ?? apiKey.client_id;
  return html`<div class="actions">
    <label for=${`overlap-${apiKey.id}`}>The old secret keeps working</label>
    <select id=${`overlap-${apiKey.id}`} value=${overlap} onChange=${(e) => setOverlap(e.currentTarget.value)}>
      ${OVERLAPS.map(([v, text]) => html`<option value=${v}>${text}</option>`)}
    </select>
    <button type="button" disabled=${request.busy} onClick=${roll} aria-label=${`Roll the secret of ${label}`}>Roll secret</button>
    <button type="button" class="danger" disabled=${request.busy} onClick=${revoke} aria-label=${`Revoke ${label}`}>Revoke</button>
    <${Problem} error=${request.error} />
  </div>
  <${CreatedBy} api=${api} id=${apiKey.id} operation="createApiKey" />`;
}

function ApiKeysPage({ api }) {
  const list = useFilteredList((_filters, cursor) => api.get('/api-keys', { query: { cursor } }), {});
  const [shown, setShown] = useState(null);
  const [open, setOpen] = useState(null);
  const refresh = () => {
    setOpen(null);
    list.first();
  };
  const showSecret = (title) => (key) => {
    setShown({ title, key });
    refresh();
  };
  return html`<div>
    ${shown ? html`<${NewSecret} shown=${shown} onDone=${() => setShown(null)} />` : null}
    <${CreateKey} api=${api} onCreated=${showSecret('Key created')} />
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${list.page
      ? html`<${Table}
          caption="API keys, newest first"
          rows=${list.page.data}
          detail=${(k) =>
            open === k.id ? html`<${KeyActions} api=${api} apiKey=${k} onRolled=${showSecret('Secret rolled')} onChanged=${refresh} />` : null}
          columns=${[
            { title: 'Name', render: (k) => k.name ?? 'The business’s first key' },
            { title: 'Client ID', render: (k) => html`<${Id} value=${k.client_id} label="client id" />` },
            { title: 'Role', render: (k) => (k.role ? words(k.role) : k.permissions.join(', ')) },
            { title: 'Status', render: (k) => words(k.status) },
            { title: 'Last used', render: (k) => html`<${When} at=${k.last_used_at} />` },
            { title: 'Old secret until', render: (k) => html`<${When} at=${k.previous_secret_expires_at} />` },
            {
              title: 'Manage',
              render: (k) =>
                k.status === 'ACTIVE'
                  ? html`<button type="button" class="secondary" aria-expanded=${open === k.id}
                      aria-label=${`Manage ${k.name ?? k.client_id}`} onClick=${() => setOpen(open === k.id ? null : k.id)}>Manage</button>`
                  : '—',
            },
          ]}
        />
        <${ListPager} list=${list} label="API keys" />`
      : null}
  </div>`;
}

/** The API keys page of the portal. */
export const page = { id: 'api-keys', title: 'API keys', sandboxOnly: false, permission: 'keys:manage', component: ApiKeysPage };
