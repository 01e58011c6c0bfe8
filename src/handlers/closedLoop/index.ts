/** Every closed-loop operation's handler, by operationId (compile error if one is missing). */
import { authOperations } from './auth.js';
import { businessOperations } from './businesses.js';
import { labelOperations } from './labels.js';
import { moneyMovementOperations } from './moneyMovement.js';
import { statementOperations } from './statements.js';
import { testHelperOperations } from './testHelpers.js';
import { transactionOperations } from './transactions.js';
import type { ClosedLoopMap } from './types.js';
import { walletOperations } from './wallets.js';
import { webhookOperations } from './webhooks.js';

export const closedLoopOperations: ClosedLoopMap = {
  ...authOperations,
  ...businessOperations,
  ...moneyMovementOperations,
  ...labelOperations,
  ...transactionOperations,
  ...walletOperations,
  ...statementOperations,
  ...webhookOperations,
  ...testHelperOperations,
};
