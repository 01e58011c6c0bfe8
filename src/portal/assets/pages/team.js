/**
 * Team page: the business's portal users (core `listPortalUsers`, cursor pages) with their
 * role and status; an invitation (`invitePortalUser`: the user gets a link to set a password
 * and enrol an authenticator, ../invitation.js; in the sandbox the link is shown here, as
 * the test helper `listSandboxUserInvitations` keeps it); a user's role changed
 * (`updatePortalUser`) or the user removed (`removePortalUser`, which ends its sessions).
 * The service refuses what the signed-in user's role may not do (403 naming the permission).
 */
import { html, useState } from '../preact-htm.js';
import { Field, Problem, Table, words } from '../ui.js';
import { ListPager, When, useFilteredList, useRequest } from '../lists.js';
import { newIdempotencyKey } from '../api.js';
import { CreatedBy } from '../creator.js';

/** The roles of shared.yaml Role, least to most. */
const ROLES = ['viewer', 'support', 'finance', 'developer', 'admin', 'owner'];

/** A role chooser; `id` names it for its label. */
const RoleSelect = ({ id, value, onChange }) =>
  html`<select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
    ${ROLES.map((r) => html`<option value=${r}>${words(r)}</option>`)}
  </select>`;

/** The invitation form; in the sandbox, the link the e-mail would carry once sent. */
function Invite({ api, sandbox, onInvited }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [link, setLink] = useState(null);
  const request = useRequest();
  const invite = (e) => {
    e.preventDefault();
    request.run(async () => {
      const user = await api.post('/portal-users', { email: email.trim(), name: name.trim(), role }, { idempotencyKey: newIdempotencyKey() });
      if (sandbox) {
        const sent = await api.get('/testhelpers/user-invitations', { query: { limit: 100 } });
        const message = sent.data.find((m) => m.user_id === user.id);
        setLink(message ? `${window.location.origin}${message.link}` : null);
      }
      setEmail('');
      setName('');
      onInvited(user);
    });
  };
  return html`<form onSubmit=${invite} aria-labelledby="invite-title">
    <h2 id="invite-title">Invite a user</h2>
    <${Field} id="invite-email" label="Email" type="email" value=${email} onInput=${setEmail} required />
    <${Field} id="invite-name" label="Name" value=${name} onInput=${setName} required />
    <label for="invite-role">Role</label>
    <${RoleSelect} id="invite-role" value=${role} onChange=${setRole} />
    <${Problem} error=${request.error} />
    <button type="submit" disabled=${request.busy}>Send invitation</button>
    ${link
      ? html`<p class="notice" role="status">Sandbox: the invitation e-mail’s link is <a href=${link}>${link}</a> (valid seven days, once).</p>`
      : null}
  </form>`;
}

/** A user's role change and removal, and who invited the user, below its row. */
function UserActions({ api, user, onChanged }) {
  const [role, setRole] = useState(user.role);
  const request = useRequest();
  const save = () => request.run(async () => onChanged(await api.patch(`/portal-users/${user.id}`, { role })));
  const remove = () => request.run(async () => onChanged(await api.del(`/portal-users/${user.id}`)));
  return html`<div class="actions">
    <label for=${`role-${user.id}`}>Role</label>
    <${RoleSelect} id=${`role-${user.id}`} value=${role} onChange=${setRole} />
    <button type="button" disabled=${request.busy || role === user.role} onClick=${save} aria-label=${`Save the role of ${user.name}`}>Save role</button>
    <button type="button" class="danger" disabled=${request.busy} onClick=${remove} aria-label=${`Remove ${user.name}`}>Remove</button>
    <${Problem} error=${request.error} />
  </div>
  <${CreatedBy} api=${api} id=${user.id} operation="invitePortalUser" />`;
}

function TeamPage({ api, session }) {
  const list = useFilteredList((_filters, cursor) => api.get('/portal-users', { query: { cursor } }), {});
  const [open, setOpen] = useState(null);
  const refresh = () => {
    setOpen(null);
    list.first();
  };
  return html`<div>
    <${Invite} api=${api} sandbox=${session.sandbox} onInvited=${refresh} />
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${list.page
      ? html`<${Table}
          caption="Users, newest first"
          rows=${list.page.data}
          detail=${(u) => (open === u.id ? html`<${UserActions} api=${api} user=${u} onChanged=${refresh} />` : null)}
          columns=${[
            { title: 'Name', render: (u) => (u.id === session.user.id ? `${u.name} (you)` : u.name) },
            { title: 'Email', key: 'email' },
            { title: 'Role', render: (u) => words(u.role) },
            { title: 'Status', render: (u) => words(u.status) },
            { title: 'Since', render: (u) => html`<${When} at=${u.activated_at ?? u.created_at} />` },
            {
              title: 'Manage',
              render: (u) =>
                u.status !== 'REMOVED'
                  ? html`<button type="button" class="secondary" aria-expanded=${open === u.id}
                      aria-label=${`Manage ${u.name}`} onClick=${() => setOpen(open === u.id ? null : u.id)}>Manage</button>`
                  : '—',
            },
          ]}
        />
        <${ListPager} list=${list} label="Users" />`
      : null}
  </div>`;
}

/** The Team page of the portal. */
export const page = { id: 'team', title: 'Team', sandboxOnly: false, permission: 'keys:manage', component: TeamPage };
