import type { ColumnType, Generated } from 'kysely';

export interface SubnamesTable {
  id: Generated<string>;
  full_name: string;
  parent_name: string;
  label: string;
  namehash: string;
  owner: string | null;
  texts: ColumnType<Record<string, string>, string, string>;
  addresses: ColumnType<Record<string, string>, string, string>;
  metadata: ColumnType<Record<string, string>, string, string>;
  contenthash: string | null;
  ttl: number | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, string>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  key_hash: string;
  parents: string[];
  note: string | null;
  created_at: ColumnType<Date, never, never>;
  revoked_at: ColumnType<Date | null, never, string | null>;
}

export interface OffchainDatabase {
  offchain_subnames: SubnamesTable;
  offchain_api_keys: ApiKeysTable;
}
