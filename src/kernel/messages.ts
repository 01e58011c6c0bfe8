/**
 * Texts of the SMS messages the customer flows send, per locale. The OTP is
 * the only number of 6 digits in its message, so that a tester can pick it out
 * of the sandbox messages (`grep -oE '[0-9]{6}'`).
 */

/** Languages of customer messages (the seed's `locale`, a language code). The list may grow. */
export const LOCALES = ['ar', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The message carrying a one-time code valid `minutes` minutes. */
export function otpMessage(locale: Locale, code: string, minutes: number): string {
  return locale === 'ar'
    ? `رمز التحقق: ${code}. صالح لمدة ${minutes} دقائق. لا تشاركه مع أحد.`
    : `Your verification code is ${code}. It is valid for ${minutes} minutes. Never share it with anyone.`;
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
