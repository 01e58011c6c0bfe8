/** What must never appear in a log line: searched by test/logs.test.ts and after the whole suite. */
export const LEAKS: [string, RegExp][] = [
  ['a JWT', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/],
  ['a sandbox client secret', /demo-business-secret|sandbox-platform-secret/],
  ['a webhook secret from the tests', /whsec_test_[A-Za-z0-9]+|whsec_dGVzdC13ZWJob29rLXNlY3Jl/],
];
