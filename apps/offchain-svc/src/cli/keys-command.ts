import { parseArgs } from 'node:util';
import { normalizeName } from '@nrp/ens';
import type { OffchainContext } from '../context';
import { listApiKeys, revokeApiKey } from '../data/api-keys';
import { issueApiKey } from '../keys/api-keys';

export const KEYS_USAGE = `Usage:
  keys create --parent <name> [--parent <name> ...] [--note <text>]   issue a key (printed once)
  keys list                                                          list keys (never the keys themselves)
  keys revoke <id>                                                   revoke a key`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class KeysUsageError extends Error {
  override name = 'KeysUsageError';
}

/** The operator's API key command; `out` receives the lines to print. Returns the exit code. */
export async function runKeysCommand(
  ctx: Pick<OffchainContext, 'db'>,
  argv: string[],
  out: (line: string) => void,
): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'create': {
      let values: { parent?: string[]; note?: string };
      try {
        ({ values } = parseArgs({
          args: rest,
          options: { parent: { type: 'string', multiple: true }, note: { type: 'string' } },
          strict: true,
        }));
      } catch (err) {
        // parseArgs throws a TypeError (ERR_PARSE_ARGS_*); read its message without trusting the realm.
        const message =
          typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
        throw new KeysUsageError(message);
      }
      const parents = (values.parent ?? [])
        .flatMap((p) => p.split(','))
        .map((p) => p.trim())
        .filter(Boolean);
      if (parents.length === 0) throw new KeysUsageError('create needs at least one --parent <name>');
      const normalised = parents.map((parent) => {
        try {
          return normalizeName(parent);
        } catch (err) {
          throw new KeysUsageError(
            `--parent ${parent}: ${err instanceof Error ? err.message : 'invalid name'}`,
          );
        }
      });
      const { key, row } = await issueApiKey(ctx, normalised, values.note);
      out(`id:      ${row.id}`);
      out(`parents: ${row.parents.join(', ')}`);
      out(`key:     ${key}`);
      out('Store the key now: it is not shown again (only its hash is kept).');
      return 0;
    }
    case 'list': {
      const rows = await listApiKeys(ctx.db);
      if (rows.length === 0) out('no keys');
      for (const row of rows) {
        const state = row.revokedAt ? `revoked ${row.revokedAt.toISOString()}` : 'active';
        const note = row.note ? `  (${row.note})` : '';
        out(
          `${row.id}  ${state.padEnd(32)}  created ${row.createdAt.toISOString()}  ${row.parents.join(',')}${note}`,
        );
      }
      return 0;
    }
    case 'revoke': {
      const [id, ...extra] = rest;
      if (!id || extra.length > 0 || !UUID.test(id))
        throw new KeysUsageError('revoke needs exactly one key id (a UUID)');
      if (!(await revokeApiKey(ctx.db, id))) {
        out(`no active key with id ${id}`);
        return 1;
      }
      out(`revoked ${id}`);
      return 0;
    }
    default:
      throw new KeysUsageError(command ? `unknown command "${command}"` : 'missing command');
  }
}
