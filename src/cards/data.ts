/**
 * Card data protection: how PANs, CVVs and PINs are made, kept and
 * compared. Nothing here touches the database; ./keys.ts builds the keyring.
 * Sealing itself (AES-256-GCM under the card data key family) is the kernel's
 * (src/kernel/secrets/sealing.ts); this module binds it to a card and a field.
 *
 * - PAN: 16 digits = the sandbox BIN `999001` (6 digits; major industry
 *   identifier 9, "national assignment", which no payment network uses, so a
 *   sandbox PAN can never be a real card's) + 9 random digits from the CSPRNG
 *   + a Luhn check digit (ISO/IEC 7812-1).
 * - Uniqueness: HMAC-SHA256 of the PAN under the fingerprint key, hex, behind a
 *   unique index (`cards.pan_fingerprint`). The index decides atomically; the
 *   plaintext is never searched for.
 * - CVV: 3 random digits (a processor derives it from the PAN and expiry with
 *   its card verification keys; the sandbox draws it). PIN: 4 digits, chosen by
 *   the customer.
 * - At rest: each value is sealed (src/kernel/secrets/sealing.ts) under the current key
 *   of the card data family, with `card:<card id>:<field>` as additional
 *   authenticated data, so a sealed value cannot be moved to another card or
 *   field. The key's version is stored beside each value (`<field>_key_version`).
 * These values leave the service only through E6 (verify display sensitive data
 * OTP): never in another response, a log line or an error.
 */
import { createHmac, randomInt } from 'node:crypto';
import { luhnCheckDigit } from '../kernel/luhn.js';
import { deriveKey, openValue, sealingKeys, sealValue, type Sealed, type SealingKeys } from '../kernel/secrets/sealing.js';

/** The sandbox's issuer identification number (BIN), the first 6 digits of every PAN. */
export const SANDBOX_BIN = '999001';

/** Card fields sealed at rest. */
export type SealedField = 'pan' | 'cvv' | 'pin';

/** Keys of the card data: AES-256 keys by version, the current version, and the fingerprint key. */
export interface CardKeyring extends SealingKeys {
  /** 32-byte HMAC key of the PAN fingerprints; it never rotates (the unique index depends on it). */
  readonly fingerprint: Buffer;
}

/**
 * The keyring from secrets of any length (environment strings or kept random
 * bytes): each AES key is HMAC-SHA256(secret, "card-data-seal"), the fingerprint
 * key HMAC-SHA256(secret, "card-pan-fingerprint"). Throws when the current
 * version has no secret or a version is not a positive integer.
 */
export function cardKeyring(args: { current: number; secrets: ReadonlyMap<number, Buffer>; fingerprintSecret: Buffer }): CardKeyring {
  return { ...sealingKeys('card-data', args.current, args.secrets, 'card-data-seal'), fingerprint: deriveKey(args.fingerprintSecret, 'card-pan-fingerprint') };
}

/** A new PAN: SANDBOX_BIN + 9 random digits + Luhn check digit (16 digits). */
export function newPan(): string {
  const body = SANDBOX_BIN + String(randomInt(0, 1_000_000_000)).padStart(9, '0');
  return body + luhnCheckDigit(body);
}

/** True when `pan` is 16 digits with a valid Luhn check digit. */
export function isValidPan(pan: string): boolean {
  return /^[0-9]{16}$/.test(pan) && luhnCheckDigit(pan.slice(0, 15)) === pan[15];
}

/** A new CVV: 3 random digits. */
export const newCvv = (): string => String(randomInt(0, 1000)).padStart(3, '0');

/** The keyed fingerprint of a PAN (hex HMAC-SHA256), what uniqueness is checked on. */
export function panFingerprint(keys: CardKeyring, pan: string): string {
  return createHmac('sha256', keys.fingerprint).update(pan).digest('hex');
}

const aad = (cardId: string, field: SealedField): string => `card:${cardId}:${field}`;

/** Seals `value` of card `cardId`'s `field` under the current key: `card-data.<iv>.<tag>.<ciphertext>` (base64url). */
export function sealCardValue(keys: CardKeyring, cardId: string, field: SealedField, value: string): Sealed {
  return sealValue(keys, aad(cardId, field), value);
}

/**
 * Opens a sealed value of card `cardId`'s `field`. Throws when its key version
 * is unknown, or when it was altered, sealed for another card or field, or under
 * another key (the GCM tag does not verify).
 */
export function openCardValue(keys: CardKeyring, cardId: string, field: SealedField, value: Sealed): string {
  return openValue(keys, aad(cardId, field), value);
}

/**
 * The expiry of a card issued at `now` (UTC): the last day of the same month
 * five years later, as YYYY-MM-DD (the seed's `expiry_date`).
 */
export function expiryDateFor(now: Date): string {
  const year = now.getUTCFullYear() + 5;
  const month = now.getUTCMonth(); // 0-based
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return `${year}-${String(month + 1).padStart(2, '0')}-${String(lastDay).padStart(2, '0')}`;
}

/** MM/YY of an expiry date YYYY-MM-DD (the seed's E6 `expiry`). */
export const expiryMonthYear = (expiryDate: string): string => `${expiryDate.slice(5, 7)}/${expiryDate.slice(2, 4)}`;
