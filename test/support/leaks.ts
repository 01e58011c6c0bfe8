/**
 * What must never leak, and the search for it: the patterns of secrets and tokens no log
 * line may hold (LEAKS), and every card's PAN, CVV and PIN, opened with the run's keys,
 * searched in the run's log file and in every response the tests received except a
 * successful E6 (cardDataLeaks). Used by the root hooks (./service.ts) after the whole
 * run, and by test/platform/running/logs.test.ts and test/cards/cardLeaks.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { Config } from '../../src/config.js';
import { openCardValue, type SealedField } from '../../src/cards/data.js';
import { acrossBusinesses } from '../../src/db/acrossBusinesses.js';
import { cardKeys } from '../../src/cards/keys.js';

/** What must never appear in a log line: searched by test/platform/running/logs.test.ts and after the whole suite. */
export const LEAKS: [string, RegExp][] = [
  ['a JWT', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/],
  ['a sandbox client secret', /demo-business-secret|sandbox-platform-secret/],
  ['a webhook secret from the tests', /whsec_test_[A-Za-z0-9]+|whsec_dGVzdC13ZWJob29rLXNlY3Jl/],
];

/** A line of the responses file (test/support/client.ts). */
interface RecordedResponse {
  method: string;
  path: string;
  status: number;
  text: string;
  /** The request's body as sent, if it had one. */
  sent?: string;
}

/** The one answer allowed to hold card data: a successful E6. */
const isE6Success = (r: RecordedResponse) => r.method === 'POST' && r.path === '/cards/sensitive-data/verify-otp' && r.status === 200;

/**
 * Files served verbatim from disk, the same in every run (the API reference page and its
 * scripts, the API documents): they cannot hold a card's data, and a 3-digit CVV as a JSON
 * string is bound to occur somewhere in megabytes of minified JavaScript.
 */
const isStaticFile = (r: RecordedResponse) => r.method === 'GET' && /^\/(docs|openapi)(\/|$)/.test(r.path);

/**
 * JSON members whose string values are short digit strings by nature, never card data: a
 * card's own last four digits, and the fields of PostgreSQL's errors in logged stacks.
 */
const DIGIT_FIELDS = new Set(['last_4_digits', 'position', 'internalPosition', 'line', 'code']);

/** A JSON member whose string value is a short digit string: `"name":"123"`. */
const DIGIT_MEMBER = /"([A-Za-z0-9_]+)"\s*:\s*"(\d{3,12})"/g;

/** Member names under which a client sends card data itself (the simulator's PIN, a step's PIN): never an echo. */
const CARD_FIELDS = /pan|cvv|pin|card_number/i;

/**
 * The digit members the tests themselves sent (`name` NUL `value`), other than card fields:
 * a label named "123" listed back under `name` is the client's own input echoed, not card
 * data, and a 3-digit name meets one of hundreds of CVVs often enough to fail a run.
 */
function sentMembers(sent: string[]): Set<string> {
  const echoes = new Set<string>();
  for (const text of sent) for (const m of text.matchAll(DIGIT_MEMBER)) if (!CARD_FIELDS.test(m[1])) echoes.add(`${m[1]}\0${m[2]}`);
  return echoes;
}

/**
 * Where each 3- to 12-digit string is the string value of a JSON member in `text` (first
 * offset), except DIGIT_FIELDS and the members the tests sent with that same value (`echoes`).
 */
function digitMembers(text: string, echoes: Set<string>): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(DIGIT_MEMBER)) {
    if (!DIGIT_FIELDS.has(m[1]) && !echoes.has(`${m[1]}\0${m[2]}`) && !found.has(m[2])) found.set(m[2], m.index!);
  }
  return found;
}

/**
 * Where `value` occurs in `place`: anywhere for a PAN; for a CVV or PIN only as the string
 * value of a JSON member (`"cvv":"123"`, `"note":"123"`), which is what a leak would look
 * like: a 3- or 4-digit string occurs by chance anywhere in a large text.
 */
function occurrence(place: { text: string; members: Map<string, number> }, field: SealedField, value: string): number {
  return field === 'pan' ? place.text.indexOf(value) : (place.members.get(value) ?? -1);
}

/**
 * The PAN, CVV and PIN of every card in `db`, opened with the run's keys, and where
 * each appears in the log file, in the API request log's bodies or in a recorded response other than a successful E6:
 * a PAN anywhere (16 digits), a CVV or PIN as the string value of a JSON member that is
 * not the tests' own input echoed (see `occurrence` and `sentMembers`). Returns one description per leak (never the value itself); empty when
 * nothing leaked.
 */
export async function cardDataLeaks(db: Knex, config: Config, logFile: string, responsesFile: string): Promise<string[]> {
  if (!(await db.schema.hasTable('cards'))) return [];
  const keys = await cardKeys(db, config);
  // Every business's cards: a read across businesses (one query per shard on Citus).
  const cards = await acrossBusinesses(db, (trx) => trx('cards').select('id', 'pan_sealed', 'pan_key_version', 'cvv_sealed', 'cvv_key_version', 'pin_sealed', 'pin_key_version'));
  const places: { where: string; text: string }[] = [{ where: 'the log file', text: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '' }];
  const responses = existsSync(responsesFile) ? readFileSync(responsesFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedResponse) : [];
  const echoes = sentMembers(responses.map((r) => r.sent ?? ''));
  places.push({
    where: 'a response other than E6',
    text: responses
      .filter((r) => !isE6Success(r) && !isStaticFile(r))
      .map((r) => `${r.method} ${r.path} ${r.text}`)
      .join('\n'),
  });
  // The API request log's stored bodies (src/audit/requestLog.ts): redacted, so none of it.
  if (await db.schema.hasTable('api_requests')) {
    const bodies = await acrossBusinesses(db, (trx) => trx('api_requests').select(trx.raw('request_body::text AS sent, response_body::text AS answered')));
    places.push({ where: 'the API request log', text: bodies.map((b: { sent: string | null; answered: string | null }) => `${b.sent} ${b.answered}`).join('\n') });
  }
  const searched = places.map((place) => ({ ...place, members: digitMembers(place.text, echoes) }));
  const leaks: string[] = [];
  for (const card of cards) {
    const open = (field: SealedField, sealed: string, keyVersion: number) => openCardValue(keys, card.id, field, { sealed, keyVersion });
    const values: [SealedField, string][] = [
      ['pan', open('pan', card.pan_sealed, card.pan_key_version)],
      ['cvv', open('cvv', card.cvv_sealed, card.cvv_key_version)],
    ];
    if (card.pin_sealed) values.push(['pin', open('pin', card.pin_sealed, card.pin_key_version)]);
    for (const [field, value] of values) {
      for (const place of searched) {
        const at = occurrence(place, field, value);
        if (at < 0) continue;
        // Name the response (its request line) or log line, never the value.
        const lineStart = place.text.lastIndexOf('\n', at) + 1;
        const line = place.text.slice(lineStart, place.text.indexOf(' ', place.text.indexOf(' ', lineStart) + 1));
        leaks.push(`the ${field} of card ${card.id} is in ${place.where} (${place.where === 'the log file' ? `line at offset ${lineStart}` : line})`);
      }
    }
  }
  return leaks;
}
