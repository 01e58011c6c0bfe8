/**
 * Which webhook URLs the service may call, checked at registration and
 * again at every delivery, on the addresses actually connected to (so a name that
 * later resolves elsewhere, DNS rebinding included, is refused at delivery):
 *
 * - production (`SANDBOX=false`): `https` only, and every address the host resolves to
 *   must be public (not loopback, private, link-local, CGNAT, multicast, documentation
 *   or otherwise reserved; IPv4-mapped IPv6 is judged by its IPv4 address);
 * - sandbox: the same, and also `http` or `https` to a loopback address
 *   (`localhost`, `127.0.0.0/8`, `::1`), so that a receiver on the tester's machine
 *   can be used. A name that does not resolve is accepted at registration in the
 *   sandbox only (its deliveries fail until it resolves); production refuses it.
 *
 * Refusals are `AppError('WEBHOOK_URL_NOT_ALLOWED')` (400) at registration and a
 * failed attempt at delivery.
 */
import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../kernel/errors.js';

const notPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) notPublic.addSubnet(net, prefix, 'ipv4');
// IPv6: only global unicast (2000::/3) can be public; within it, these are not.
for (const [net, prefix] of [['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['3fff::', 20]] as const) notPublic.addSubnet(net, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else the address itself. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  const a = unmapped(address);
  const family = isIP(a);
  if (family === 4) return !notPublic.check(a, 'ipv4');
  if (family === 6) return globalUnicast.check(a, 'ipv6') && !notPublic.check(a, 'ipv6');
  return false;
}

/** True for a loopback address. */
export function isLoopbackAddress(address: string): boolean {
  const a = unmapped(address);
  const family = isIP(a);
  return family === 4 ? loopback.check(a, 'ipv4') : family === 6 ? loopback.check(a, 'ipv6') : false;
}

export interface UrlPolicy {
  sandbox: boolean;
}

/** Why `address` may not be called over `protocol`, or null when it may. */
export function addressRefusal(policy: UrlPolicy, protocol: string, address: string): string | null {
  if (policy.sandbox && isLoopbackAddress(address)) return null;
  if (protocol !== 'https:') return policy.sandbox ? 'http is accepted for loopback addresses only' : 'only https URLs are accepted';
  return isPublicAddress(address) ? null : `the host resolves to a non-public address (${address})`;
}

/** Every address `host` resolves to (all families), within `timeoutMs`. */
export function resolveAll(host: string, timeoutMs = 3_000): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error(`resolving ${host} timed out`), { code: 'ETIMEOUT' })), timeoutMs);
    lookup(host, { all: true, verbatim: true }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks a URL at registration; throws 400 WEBHOOK_URL_NOT_ALLOWED with the reason.
 * Credentials in the URL are refused (they would be sent in clear in logs and headers).
 */
export async function checkRegistrationUrl(policy: UrlPolicy, raw: string): Promise<void> {
  const refuse = (why: string) => new AppError('WEBHOOK_URL_NOT_ALLOWED', `The webhook URL is not allowed: ${why}.`, { errors: [{ pointer: '/url', detail: why }] });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('it is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('only https URLs are accepted');
  if (url.username || url.password) throw refuse('it must not carry credentials');
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolveAll(host)).map((a) => a.address);
    } catch {
      if (policy.sandbox && url.protocol === 'https:') return;
      throw refuse(`the host ${host} does not resolve`);
    }
  }
  for (const address of addresses) {
    const why = addressRefusal(policy, url.protocol, address);
    if (why) throw refuse(why);
  }
}
