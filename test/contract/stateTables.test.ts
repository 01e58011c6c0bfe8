/**
 * Every state machine of the service against the table its document publishes (a
 * tag's description in core.yaml: `| state | meaning | allowed moves | …`): the same
 * states, the same final states, and every state the table names as a move's
 * target is one the machine can enter from that row's state. The machines are the
 * kernel's one form (src/kernel/stateMachine.ts); this keeps code and document one.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { cardIssuanceMachine, cardMachine } from '../../src/cards/states.js';
import { activationRequestMachine } from '../../src/cards/tokenization.js';
import { mobileChangeMachine } from '../../src/customers/mobileNumberChange/states.js';
import { onboardingMachine } from '../../src/customers/onboardingStates.js';
import type { StateMachine } from '../../src/kernel/stateMachine.js';
import { payoutApprovalMachine } from '../../src/payouts/approvalStates.js';
import { payoutMachine } from '../../src/payouts/states.js';

interface Row {
  state: string;
  final: boolean;
  /** States named in the "allowed moves" cell. */
  targets: string[];
}

const tags: { name: string; description?: string }[] = parse(readFileSync('openapi/core.yaml', 'utf8')).tags;

/** The `n`-th state table (0-based) of tag `tag`'s description. */
function table(tag: string, n: number): Row[] {
  const description = tags.find((t) => t.name === tag)?.description ?? '';
  const tables = description.split(/\n(?=\| state \| meaning \|)/).slice(1);
  expect(tables.length, `state tables in tag ${tag}`).to.be.greaterThan(n);
  const header = tables[n].split('\n')[0].split('|').map((c) => c.trim());
  const movesColumn = header.indexOf('allowed moves');
  const lines = tables[n].split('\n').slice(2);
  const end = lines.findIndex((line) => !line.startsWith('|'));
  return lines
    .slice(0, end < 0 ? lines.length : end)
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      return {
        state: cells[1].replace(/`/g, ''),
        final: /\(final\)/.test(cells[2]),
        targets: [...(cells[movesColumn] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]),
      };
    });
}

/** The states `machine` can be in after one move from `state` (itself, for moves that keep it). */
function reachable(machine: StateMachine<string, string>, state: string): Set<string> {
  const out = new Set<string>();
  for (const move of Object.values(machine.moves)) if (move.from.includes(state)) out.add(move.to ?? state);
  return out;
}

/** Whether some move leaves `state` for another state. */
const leaves = (machine: StateMachine<string, string>, state: string) => [...reachable(machine, state)].some((s) => s !== state);

const MACHINES: { name: string; tag: string; n: number; machine: StateMachine<string, string>; decidedByOutcome?: string[] }[] = [
  { name: 'onboarding session', tag: 'Onboarding', n: 0, machine: onboardingMachine },
  // Verifying the code leads where the flow's other checks say (profile or login screen).
  { name: 'mobile number change session', tag: 'Wallet', n: 0, machine: mobileChangeMachine, decidedByOutcome: ['PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION', 'IDENTITY_VERIFICATION_IN_PROGRESS'] },
  { name: 'card issuance', tag: 'Cards', n: 0, machine: cardIssuanceMachine },
  { name: 'card', tag: 'Cards', n: 1, machine: cardMachine },
  { name: 'payout', tag: 'Payouts', n: 0, machine: payoutMachine },
  { name: 'payout approval', tag: 'Payout Approvals', n: 0, machine: payoutApprovalMachine },
  // Verifying the code activates, fails or leaves the request pending by the code's outcome.
  { name: 'tokenization activation request', tag: 'Test Helpers', n: 0, machine: activationRequestMachine, decidedByOutcome: ['PENDING_VERIFICATION'] },
];

describe('state machines: the code and the published tables are one', function () {
  for (const { name, tag, n, machine, decidedByOutcome = [] } of MACHINES) {
    it(`${name}: the same states, the same final states, and every published move allowed (tag ${tag})`, function () {
      const rows = table(tag, n);
      expect(rows.map((r) => r.state)).to.have.members([...machine.states]);
      for (const row of rows) {
        expect(leaves(machine, row.state), `${row.state} is final in the table, so no move may leave it`).to.equal(!row.final);
        if (decidedByOutcome.includes(row.state)) continue;
        const canReach = reachable(machine, row.state);
        for (const target of row.targets) expect([...canReach], `${row.state} → ${target} is published`).to.include(target);
      }
    });
  }
});
