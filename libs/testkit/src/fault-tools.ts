import { existsSync } from 'node:fs';
import { requireParts } from './requirements';

/**
 * Whether a program a fault test needs is installed (by path: PostgreSQL's binaries are not on PATH). Missing, the
 * test skips with one loud line naming it, except under REQUIRE_FAULT_TESTS=1 (CI, `.ci/run`), where it fails.
 */
export function faultToolAvailable(program: string, install: string): boolean {
  return requireParts(
    'REQUIRE_FAULT_TESTS',
    'a fault test',
    existsSync(program) ? [] : [`no ${program} (${install})`],
  );
}
