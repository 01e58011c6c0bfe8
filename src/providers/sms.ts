/**
 * SMS provider: one small interface and its sandbox implementation. The
 * sandbox stores each message (`sandbox_sms_messages`), which the test helper
 * `GET /testhelpers/sms-messages` lists: that is how a tester reads an OTP.
 * Outside the sandbox no SMS provider is configured yet, and sending fails
 * (503) instead of storing codes anywhere.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import type { TextMessage, TextMessages } from '../kernel/otp/flowEnv.js';
import { otpCodeIn } from '../kernel/otp/messages.js';
import { callProvider, ProviderFailure } from './call.js';
import { failIfOutage } from './outages.js';

/** One text message to one mobile number, sent on behalf of a business (the kernel's shape). */
export type SmsMessage = TextMessage;

/** Sends text messages; rejects (any error) when the message was not accepted. */
export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}

/**
 * `sender` as the kernel's text message channel: each send behind the provider call's
 * time limit `timeoutMs`, a failure answered 503 SERVICE_UNAVAILABLE (./call.ts).
 */
export function smsChannel(sender: SmsSender, timeoutMs: number): TextMessages {
  return { send: (message) => callProvider('SMS', timeoutMs, () => sender.send(message)) };
}

/** Sandbox: stores the message for the messages helper; honours sandbox outages. */
export class SandboxSmsSender implements SmsSender {
  constructor(private readonly db: Knex) {}

  async send(message: SmsMessage): Promise<void> {
    await failIfOutage(this.db, message.businessId, 'SMS');
    await this.db('sandbox_sms_messages').insert({ id: randomUUID(), business_id: message.businessId, mobile_number: message.to, text: message.text });
  }
}

/** No SMS provider configured (SANDBOX=false): every send fails. */
export class UnconfiguredSmsSender implements SmsSender {
  async send(): Promise<void> {
    throw new ProviderFailure('SMS', 'no SMS provider is configured');
  }
}

/** A message as the sandbox helper lists it. */
export interface SandboxSmsMessageView {
  id: string;
  mobile_number: string;
  text: string;
  /** The one-time code the text carries, null for a notification (sandbox only: a tester's convenience). */
  otp: string | null;
  created_at: string;
}

interface MessageRow {
  id: string;
  mobile_number: string;
  text: string;
  created_at: Date;
}

/** A page of the messages the sandbox sent for the business, newest first, optionally to one number. */
export async function listSandboxSmsMessages(
  db: Knex,
  businessId: string,
  filter: PageQuery & { mobile_number?: string },
): Promise<Page<SandboxSmsMessageView>> {
  const query = db('sandbox_sms_messages').where({ business_id: businessId });
  if (filter.mobile_number) query.where({ mobile_number: filter.mobile_number });
  return paginate<MessageRow, SandboxSmsMessageView>(query, filter, (rows) =>
    rows.map((r) => ({ id: r.id, mobile_number: r.mobile_number, text: r.text, otp: otpCodeIn(r.text), created_at: r.created_at.toISOString() })),
  );
}
