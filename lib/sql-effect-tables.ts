/**
 * The SQL effect tables a consumer declares on `SqlEffectDatabase.connect`: the tables its
 * handlers' SQL writes to, which only that SQL names. Declared, they are in the function's
 * `SQL_EFFECT_TABLES` (aws/consumer-env.ts), where the tools read them: `eo replay --generation`
 * refuses a generation whose tables are the live generation's, as it does for DynamoDB tables
 * (docs/operations.md, "Rebuild").
 */
import { Token } from 'aws-cdk-lib';
import { SQL_IDENTIFIER_PATTERN } from '../aws/sql-dedup-table';
import { checkPattern } from './validation';

/** Options of `SqlEffectDatabase.connect`. */
export interface SqlConnectOptions {
  /**
   * The tables the consumer's handlers write their effects to, `name` or `schema.name`. A rebuilt
   * generation (`generation: 2`) names tables of its own here, apart from the live generation's:
   * `eo replay --generation` refuses a generation that shares one with an earlier generation, and
   * a SQL consumer that declares none unless given `--allow-undeclared-sql-tables`.
   * @default - none declared
   * @example
   * ```ts
   * import { AlarmTopic, QueueConsumer, SqlEffectDatabase } from 'effectively-once';
   * const alarmTopic = new AlarmTopic(this, 'Alarms').topic;
   * const database = new SqlEffectDatabase(this, 'Effects', { alarmTopic });
   * const rebuilt = new QueueConsumer(this, 'PaymentsRebuild', { consumerName: 'invoice-payments', generation: 2, entry: 'handlers/invoice-payments.ts', alarmTopic });
   * database.connect(rebuilt.function, { effectTables: ['payments_v2', 'invoices_v2'] });
   * ```
   */
  readonly effectTables?: readonly string[];
}

/**
 * The value of `SQL_EFFECT_TABLES` for `tables`, checked: each a plain identifier, none twice,
 * none the dedup table (which generations share and key apart).
 * @throws Error naming the bad entry, or for an empty list
 */
export function sqlEffectTablesValue(tables: readonly string[], dedupTable: string): string {
  if (tables.length === 0) throw new Error('effectTables must name at least one table (leave it out to declare none)');
  tables.forEach((table, index) => checkPattern(`effectTables[${index}]`, table, SQL_IDENTIFIER_PATTERN));
  const seen = new Set<string>();
  for (const table of tables) {
    if (Token.isUnresolved(table)) continue;
    const key = table.toLowerCase();
    if (key === dedupTable.toLowerCase()) throw new Error(`effectTables must not name the dedup table (given "${table}"): every generation writes its dedup rows there, keyed apart`);
    if (seen.has(key)) throw new Error(`effectTables names "${table}" twice`);
    seen.add(key);
  }
  return tables.join(',');
}
