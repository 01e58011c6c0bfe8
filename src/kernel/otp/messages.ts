/**
 * Texts of the SMS messages the customer flows send, per locale. The OTP is
 * the only number of 6 digits in its message, so that a tester can pick it out
 * of the sandbox messages (`grep -oE '[0-9]{6}'`); `otpCodeIn` reads it back
 * for the sandbox's SMS inbox, which answers it as a field of its own.
 */

/** Languages of customer messages (the seed's `locale`, a language code). The list may grow. */
export const LOCALES = ['ar', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The message carrying a one-time code valid `minutes` minutes. */
export function otpMessage(locale: Locale, code: string, minutes: number): string {
  return otpTemplate(locale, code, String(minutes));
}

function otpTemplate(locale: Locale, code: string, minutes: string): string {
  return locale === 'ar'
    ? `رمز التحقق: ${code}. صالح لمدة ${minutes} دقائق. لا تشاركه مع أحد.`
    : `Your verification code is ${code}. It is valid for ${minutes} minutes. Never share it with anyone.`;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each locale's OTP message as a pattern: the template itself, so the two cannot drift apart. */
const OTP_MESSAGE_PATTERNS = LOCALES.map(
  (locale) => new RegExp(`^${escapeRegExp(otpTemplate(locale, '\u0001', '\u0002')).replace('\u0001', '([0-9]{4,8})').replace('\u0002', '[0-9]+')}$`),
);

/**
 * The one-time code an OTP message (`otpMessage`, any locale) carries, or null for any
 * other text (a notification). Sandbox only: the SMS inbox helper answers it beside the
 * text, so that a workflow selects the code by JSON pointer instead of a pattern.
 */
export function otpCodeIn(text: string): string | null {
  for (const pattern of OTP_MESSAGE_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return match[1];
  }
  return null;
}

/** Last four digits of a mobile number, the rest masked (`*******4567`). */
export function maskMobileNumber(mobileNumber: string): string {
  return `${'*'.repeat(Math.max(0, mobileNumber.length - 4))}${mobileNumber.slice(-4)}`;
}

/** The notice to a customer's previous mobile number that the wallet's number changed to `newNumber` on `date` (YYYY-MM-DD). */
export function mobileNumberChangedMessage(locale: Locale, newNumber: string, date: string): string {
  const masked = maskMobileNumber(newNumber);
  return locale === 'ar'
    ? `تم تغيير رقم الجوال المرتبط بمحفظتك إلى ${masked} بتاريخ ${date}. إذا لم تطلب ذلك فتواصل معنا فوراً.`
    : `The mobile number of your wallet was changed to ${masked} on ${date}. If you did not ask for this, contact us at once.`;
}
