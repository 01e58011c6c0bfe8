/**
 * Assertions shared by the test files: problem-details responses (status and `code`, a
 * validation error naming a field), and the error a promise rejects with.
 */
import { expect } from 'chai';
import type { ApiResponse } from './client.js';

/** Asserts a problem-details response with `status` and `code` (the body is shown on failure). */
export function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.code, JSON.stringify(res.body)).to.equal(code);
}

/** Asserts a 400 VALIDATION_ERROR naming `pointer`. */
export function expectValidation(res: ApiResponse, pointer: string): void {
  expectProblem(res, 400, 'VALIDATION_ERROR');
  expect(res.body.errors.map((e: { pointer: string }) => e.pointer), JSON.stringify(res.body)).to.include(pointer);
}

/** The error `p` rejects with (undefined if it resolves). */
export async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return undefined;
}

/**
 * Polls until `check` resolves, every 100 ms; after `ms` milliseconds throws the last
 * failure of `check` (so the test reports what was still wrong, not a bare time-out).
 */
export async function eventually(check: () => Promise<void>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
