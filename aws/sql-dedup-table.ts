/**
 * The SQL dedup table, as both sides know it: the construct creates it at deploy and deletes its
 * expired rows on a schedule, the runtime's SQL strategy inserts one row per event in the same
 * transaction as the event's effects (docs/patterns/sql-dedup.md). Written once, here.
 */

/** The table's name unless told otherwise. */
export const DEFAULT_SQL_DEDUP_TABLE = 'eo_dedup';

/**
 * Letters, digits and underscores, not starting with a digit, at most 63 characters (PostgreSQL's
 * limit), optionally one schema prefix (`ledger.balances`). Identifiers cannot be parameters, so
 * they are checked against this before they are quoted into a statement's text.
 */
export const SQL_IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** `name` double-quoted part by part (`ledger.dedup` -> `"ledger"."dedup"`). The caller checked it against {@link SQL_IDENTIFIER_PATTERN}. */
export function quotedSqlIdentifier(name: string): string {
  return name.split('.').map((part) => `"${part}"`).join('.');
}

/**
 * The statements that create the dedup table and the index its expiry reads, each safe to run
 * again (`IF NOT EXISTS`): the key `<consumer>#<eventId>`, the payload's hash (to tell a
 * conflicting duplicate), and the expiry in epoch seconds.
 *
 * @throws Error when `table` is not a plain identifier
 */
export function sqlDedupTableStatements(table: string): readonly string[] {
  const name = checkedTable(table);
  const index = quotedSqlIdentifier(`${table.split('.').pop() as string}_expires_at`);
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (dedup_key text PRIMARY KEY, payload_hash text NOT NULL, expires_at bigint NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS ${index} ON ${name} (expires_at)`,
  ];
}

/**
 * The statement that deletes the rows past their expiry, as the schedule runs it: no parameters,
 * the clock is the database's.
 *
 * @throws Error when `table` is not a plain identifier
 */
export function sqlDedupExpiryStatement(table: string): string {
  return `DELETE FROM ${checkedTable(table)} WHERE expires_at < extract(epoch from now())::bigint`;
}

function checkedTable(table: string): string {
  if (!SQL_IDENTIFIER_PATTERN.test(table)) {
    throw new Error(`not a plain SQL identifier: ${JSON.stringify(table)} (letters, digits and underscores, not starting with a digit, at most 63 characters, optionally schema.name)`);
  }
  return quotedSqlIdentifier(table);
}
