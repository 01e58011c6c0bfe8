/**
 * KYC information for the sandbox onboarding flow, with no dependency of its own: used by
 * the test fixtures (./customers.ts) and by the bulk-payout benchmark (scripts/bench/bulk.ts).
 */

/** KYC information that passes every rule, for `customerId`. */
export const validInformation = (customerId: string): Record<string, unknown> => ({
  customer_id: customerId,
  occupation_class: 'WORKER',
  occupation: 'ENGINEER',
  employer_name: 'Example Engineering Co.',
  income_source: 'SALARY',
  monthly_income_range: 'RANGE_0_TO_4999',
  politically_exposed: false,
});
