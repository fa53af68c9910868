/**
 * PostgreSQL's protocol carries at most 65,535 bind parameters in one statement, and PGlite's client reads the count
 * as a signed 16-bit number (past 32,767 its parser fails with "Invalid array length").
 */
const MAX_PARAMETERS = 32_767;

/**
 * `rows` cut into groups small enough for one multi-row statement each, when every row binds `parametersPerRow`
 * values (an insert of a whole batch of rows would otherwise fail past the protocol's limit).
 */
export function statementGroups<T>(rows: readonly T[], parametersPerRow: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / parametersPerRow));
  const groups: T[][] = [];
  for (let i = 0; i < rows.length; i += size) groups.push(rows.slice(i, i + size));
  return groups;
}
