/**
 * Who created an object a panel shows, from the audit log: "Created by <who> · <when>". The
 * creating event is core `listAuditEvents` filtered by the object's id (`target_id`) and its
 * creating operation (`operation_id`): the oldest successful one that is not a replay. Who is
 * a portal user's name (else email) or an API key's name (else client id), read from
 * `listPortalUsers`, `listApiKeys` and the signed-in user's own session once per sign-in (per
 * `api`, which each sign-in makes anew; only with `keys:manage`, which the lists need); an actor
 * they do not name reads as its id.
 * Without a creating event (older than the log's retention, made before the log existed, or
 * made within another request such as a bulk file's payouts)
 * it reads "Creator unknown: not in the audit log (…)". When the log cannot be read
 * (a role without `business:read`, or the service unreachable) it shows nothing: the panel
 * stands without it. A refusal (403) is remembered for the sign-in, as the lists' are, so
 * that a role without the permission leaves one refusal in the log, not one per panel.
 */
import { html, useEffect, useState } from './preact-htm.js';
import { formatTime } from './ui.js';

/** The most pages of 100 read from each directory list. */
const DIRECTORY_PAGES = 10;

/**
 * Per sign-in (its `api`): `names`, a promise of the actors' names (`user:<id>` and
 * `api_key:<client_id>` to a name), and `logRefused`, whether the audit log answered 403.
 */
const signIns = new WeakMap();

/** The cache of the sign-in whose client is `api`. */
function cacheOf(api) {
  if (!signIns.has(api)) signIns.set(api, { names: null, logRefused: false });
  return signIns.get(api);
}

/** Every item of a cursor-paged list at `path`, up to DIRECTORY_PAGES pages; none when the role may not read it. */
async function everyItem(api, path) {
  const items = [];
  let cursor;
  try {
    for (let i = 0; i < DIRECTORY_PAGES; i++) {
      const page = await api.get(path, { query: { limit: 100, cursor } });
      items.push(...page.data);
      if (!page.has_more) break;
      cursor = page.next_cursor;
    }
  } catch {
    // A role without `keys:manage` reads neither list: its actors read as their ids.
  }
  return items;
}

/** The names of the business's actors, read once per sign-in. */
function namesOf(api) {
  const cache = cacheOf(api);
  cache.names ??= (async () => {
    // Only a user who may manage keys reads the directories: another's actors read as their ids.
    const directory = api.can('keys:manage');
    const [users, keys, own] = await Promise.all([
      directory ? everyItem(api, '/portal-users') : [],
      directory ? everyItem(api, '/api-keys') : [],
      api.get('/portal-sessions/current').then((s) => [s.user], () => []),
    ]);
    const names = new Map();
    for (const u of [...users, ...own]) names.set(`user:${u.id}`, u.name || u.email);
    for (const k of keys) names.set(`api_key:${k.client_id}`, k.name || k.client_id);
    return names;
  })();
  return cache.names;
}

/** The creating event of the object `id` made by `operation`, null when the log has none; throws when the log cannot be read. */
async function creatingEvent(api, id, operation) {
  const cache = cacheOf(api);
  if (cache.logRefused) throw new Error('The audit log is not this role’s to read.');
  const page = await api.get('/audit-events', { query: { target_id: id, operation_id: operation, limit: 100 } }).catch((err) => {
    if (err?.status === 403) cache.logRefused = true;
    throw err;
  });
  const made = page.data.filter((e) => e.status < 300 && !e.replayed);
  return made.length ? made[made.length - 1] : null;
}

/**
 * "Created by <who> · <when>" of the object `id` that `operation` (an operationId, such as
 * `createWallet`) created; nothing while it loads or when the log cannot be read.
 */
export function CreatedBy({ api, id, operation }) {
  const [text, setText] = useState(null);
  useEffect(() => {
    let current = true;
    setText(null);
    (async () => {
      const event = await creatingEvent(api, id, operation);
      if (!event) return 'Creator unknown: not in the audit log (older than its retention, or made within another request, such as a bulk file’s payouts)';
      const names = await namesOf(api);
      const who = names.get(`${event.actor.type}:${event.actor.id}`) ?? `${event.actor.type === 'user' ? 'user' : 'API key'} ${event.actor.id}`;
      return `Created by ${who} · ${formatTime(event.created_at)}`;
    })().then(
      (t) => current && setText(t),
      () => current && setText(null),
    );
    return () => {
      current = false;
    };
  }, [api, id, operation]);
  return text ? html`<p class="muted created-by" data-created-by>${text}</p>` : null;
}

/** The name of `actor` (`{ type, id }`, as the audit log and a payout approval name one), else its kind and id. */
export function ActorName({ api, actor }) {
  const fallback = `${actor.type === 'user' ? 'user' : 'API key'} ${actor.id}`;
  const [name, setName] = useState(null);
  useEffect(() => {
    let current = true;
    namesOf(api).then((names) => current && setName(names.get(`${actor.type}:${actor.id}`) ?? null), () => {});
    return () => {
      current = false;
    };
  }, [api, actor.type, actor.id]);
  return name ?? fallback;
}
