export { createDatabase, assertSchemaName, DatabaseError } from './database';
export type { CreateDatabaseOptions, DatabaseHandle } from './database';
export { migrate, MigrationError } from './migrate';
export type { MigrateOptions, Migration } from './migrate';
export {
  PgErrorCode,
  pgErrorCode,
  pgConstraintName,
  isUniqueViolation,
  isForeignKeyViolation,
  isSerializationFailure,
  isDatabaseUnavailable,
} from './errors';
export { databaseEnvSchema, databaseFromEnv, databaseSchemaEnv, requireDatabaseUrlInProduction } from './env';
export type { DatabaseEnv } from './env';
export { statementGroups } from './statement-rows';
