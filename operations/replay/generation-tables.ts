/**
 * Whether a replay into a generation would apply events again to another generation's tables. A
 * rebuilt generation keys its dedup records apart (`<name>@g<n>#<eventId>`), so a replay into it
 * applies every event of the window: into tables of its own, a rebuild; into tables an earlier
 * generation (the live one) writes to, every event a second time there. So a replay into a
 * generation that shares an effect table with an earlier one is refused.
 *
 * The effect tables are what the stack declares: for DynamoDB, each variable of the function that
 * names a table of the stack but its dedup table (`effectTablesOf`); for a SQL consumer, the
 * tables `SqlEffectDatabase.connect` was given (`SQL_EFFECT_TABLES`), on its cluster and database.
 * A SQL consumer that declares none cannot be told apart: that is refused too, unless the operator
 * says the tables are its own.
 */
import { SQL_ENV } from '../../aws/consumer-env';
import { effectTablesOf } from '../dlq/consumer-functions';
import type { ConsumerFunction, StackTopology } from '../dlq/types';

/** The tables a generation writes its effects to, as the stack declares them. */
export interface GenerationTables {
  readonly generation: number;
  /** The DynamoDB tables' names. */
  readonly dynamodb: readonly string[];
  /** Set for a SQL consumer: its database, and the tables it declares (undefined when it declares none). */
  readonly sql?: SqlEffectTables;
}

/** A SQL consumer's effect tables, in the database they live in. */
export interface SqlEffectTables {
  /** `DATA_API_RESOURCE_ARN`; undefined when the template does not resolve it (then it may be anyone's). */
  readonly cluster?: string;
  /** `DATA_API_DATABASE`; undefined when unresolved. */
  readonly database?: string;
  /** `SQL_EFFECT_TABLES`, normalised ({@link sqlTableKey}); undefined when the consumer declares none. */
  readonly tables?: readonly string[];
}

/** What a replay into a generation would share with the earlier ones. */
export interface SharedTables {
  /** The tables the generation shares with an earlier one, each named with the generation and store (`DynamoDB table T of generation 1`). */
  readonly shared: readonly string[];
  /** The earlier generations on the same SQL database of which it cannot be told, as one of them declares no effect tables. */
  readonly undeclared: readonly number[];
}

/** The tables `fn` writes to, from its environment. */
export function generationTablesOf(topology: Pick<StackTopology, 'tables'>, fn: ConsumerFunction): GenerationTables {
  const environment = fn.environment ?? {};
  const isSql = environment[SQL_ENV.dedupTable] !== undefined || environment[SQL_ENV.resourceArn] !== undefined;
  const declared = environment[SQL_ENV.effectTables];
  const sql: SqlEffectTables | undefined = isSql
    ? { cluster: environment[SQL_ENV.resourceArn], database: environment[SQL_ENV.database], tables: declared === undefined ? undefined : declared.split(',').map(sqlTableKey).filter((table) => table !== '') }
    : undefined;
  return { generation: fn.generation ?? 1, dynamodb: [...new Set(Object.values(effectTablesOf(topology, fn)))].sort(), ...(sql && { sql }) };
}

/**
 * A SQL table's name as two declarations of it compare: lower case (the tools cannot tell quoted
 * names apart from the handlers' SQL, so they err towards "the same"), without `public.`.
 */
export function sqlTableKey(name: string): string {
  const key = name.trim().toLowerCase();
  return key.startsWith('public.') ? key.slice('public.'.length) : key;
}

/** What `target` shares with each of `earlier`. */
export function sharedTables(target: GenerationTables, earlier: readonly GenerationTables[]): SharedTables {
  const shared: string[] = [];
  const undeclared: number[] = [];
  for (const other of earlier) {
    for (const table of target.dynamodb.filter((name) => other.dynamodb.includes(name))) shared.push(`DynamoDB table ${table} of generation ${other.generation}`);
    const [mine, theirs] = [target.sql, other.sql];
    if (mine === undefined || theirs === undefined || !sameDatabase(mine, theirs)) continue;
    if (mine.tables === undefined || theirs.tables === undefined) undeclared.push(other.generation);
    else for (const table of mine.tables.filter((name) => theirs.tables?.includes(name))) shared.push(`SQL table ${table} of generation ${other.generation} (database ${mine.database ?? '?'})`);
  }
  return { shared, undeclared };
}

/** Whether two SQL consumers may write to one database: the same cluster and database, or one that the template leaves unresolved. */
function sameDatabase(a: SqlEffectTables, b: SqlEffectTables): boolean {
  const same = (x: string | undefined, y: string | undefined) => x === undefined || y === undefined || x === y;
  return same(a.cluster, b.cluster) && same(a.database, b.database);
}

/** The other functions of `fn`'s consumer at a lower generation: the live one, and any before it. */
export function earlierGenerations(topology: Pick<StackTopology, 'consumerFunctions'>, fn: ConsumerFunction): ConsumerFunction[] {
  const name = fn.name ?? fn.consumer;
  const byFunction = new Map<string, ConsumerFunction>();
  for (const candidate of topology.consumerFunctions) {
    if ((candidate.name ?? candidate.consumer) !== name || candidate.functionName === fn.functionName) continue;
    if ((candidate.generation ?? 1) < (fn.generation ?? 1)) byFunction.set(candidate.functionName, candidate);
  }
  return [...byFunction.values()];
}
