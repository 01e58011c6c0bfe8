/**
 * Permissions and roles: one model for API keys and, later, portal users.
 *
 * A permission is `<area>:<verb>`; every documented operation names the one it needs in
 * its `x-permission` (openapi/DESIGN.md, "Permissions"), checked by the HTTP layer before
 * the request body is looked at. Besides the permissions, `x-permission` takes three
 * markers that need no grant: `none` (public operations: `security: []`), `signature` (a
 * provider's signed callback) and `platform` (platform tokens only). A platform token holds
 * every permission of the operations it may call.
 *
 * A role is a named set of permissions. A key (or user) holds either a role, whose set
 * grows when a permission is added here, or an explicit list of permissions.
 */

/** Every permission, in the order the documents list them (the `Permission` schema's enum). */
export const PERMISSIONS = [
  'business:read',
  'business:manage',
  'keys:manage',
  'wallets:read',
  'wallets:write',
  'money:move',
  'customers:read',
  'customers:write',
  'cards:read',
  'cards:write',
  'payouts:read',
  'payouts:write',
  'webhooks:read',
  'webhooks:manage',
  'sandbox:simulate',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** The `x-permission` values that are not permissions: who may call without a grant. */
export const PERMISSION_MARKERS = ['none', 'signature', 'platform'] as const;

export type PermissionMarker = (typeof PERMISSION_MARKERS)[number];

/** True when `value` names a permission. */
export function isPermission(value: unknown): value is Permission {
  return (PERMISSIONS as readonly unknown[]).includes(value);
}

const READS = PERMISSIONS.filter((p) => p.endsWith(':read'));

/**
 * The roles (the `Role` schema's enum) and their permissions: owner and admin hold every
 * one; developer manages keys, webhooks and the business's API version and uses the
 * sandbox; finance moves money and sends payouts; support reads everything and makes the
 * corrections that move no money (a card's status, a wallet's status or labels); viewer reads.
 */
export const ROLES = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  developer: [...READS, 'business:manage', 'keys:manage', 'webhooks:manage', 'sandbox:simulate'],
  finance: [...READS, 'money:move', 'payouts:write'],
  support: [...READS, 'wallets:write', 'cards:write'],
  viewer: READS,
} as const satisfies Record<string, readonly Permission[]>;

export type Role = keyof typeof ROLES;

/** True when `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(ROLES, value);
}

/** The permissions of a holder with `role`, or else the explicit `permissions` (unknown names dropped), in PERMISSIONS order. */
export function permissionsOf(holder: { role: string | null; permissions: readonly string[] | null }): Permission[] {
  const granted: readonly string[] = isRole(holder.role) ? ROLES[holder.role] : (holder.permissions ?? []);
  return PERMISSIONS.filter((p) => granted.includes(p));
}
