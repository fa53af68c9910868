import { existsSync } from 'node:fs';

/**
 * Whether a program a fault test needs is installed. Missing, the test skips with one loud line naming it, except
 * under REQUIRE_FAULT_TESTS=1 (CI, `.ci/run`), where missing is an error: CI must run every fault test.
 */
export function faultToolAvailable(program: string, install: string): boolean {
  if (existsSync(program)) return true;
  if (process.env.REQUIRE_FAULT_TESTS === '1') {
    throw new Error(`REQUIRE_FAULT_TESTS=1 but ${program} is missing (${install})`);
  }
  process.stderr.write(`SKIPPING a fault test: ${program} is missing (${install})\n`);
  return false;
}
