/**
 * What the generated test of a SQL consumer (`--pattern sql`) does: the handler runs on a real
 * PostgreSQL behind the local Data API, as the function reaches Aurora on AWS, with the dedup table
 * and the construct's own DDL made through the Data API as the deploy makes them; the duplicate and
 * poison scenarios read the effects back from the tables. `test-template.ts` puts them into the
 * source's scenario, as it does the other patterns' (./test-parts.ts).
 */
import { Source, type ConsumerRequest } from './options';
import type { ImportSpec } from './render';
import type { TestParts, Wiring } from './test-parts';

/** The pieces of a SQL consumer's test, for its kind of source. */
export function sqlTestParts(request: ConsumerRequest): TestParts {
  return request.source === Source.DYNAMODB_STREAM ? streamSql() : envelopeSql();
}

const EMULATOR = '../../../emulator';

const SQL_IMPORTS: ImportSpec[] = [
  ['@aws-sdk/client-rds-data', 'ExecuteStatementCommand'],
  ['@aws-sdk/client-rds-data', 'RDSDataClient'],
  [`${EMULATOR}/engines/account`, 'LOCAL_CREDENTIALS'],
  [`${EMULATOR}/engines/account`, 'LOCAL_REGION'],
  [`${EMULATOR}/engines/postgres`, 'startPostgres'],
  [`${EMULATOR}/engines/postgres`, 'type RunningPostgres'],
  [`${EMULATOR}/engines/postgres-session`, 'PostgresSession'],
  [`${EMULATOR}/gateway/data-api-gateway`, 'LOCAL_CLUSTER_ARN'],
  [`${EMULATOR}/gateway/data-api-gateway`, 'LOCAL_SECRET_ARN'],
  [`${EMULATOR}/gateway/data-api-gateway`, 'startDataApiGateway'],
  [`${EMULATOR}/gateway/data-api-gateway`, 'type DataApiGateway'],
  ['{{runtime}}', 'DataApiSession'],
  ['{{runtime}}', 'dedupTableDdl'],
];

/**
 * The database of a SQL consumer's test: a real PostgreSQL behind the local Data API, reached as
 * the function reaches Aurora on AWS, with the dedup table and the construct's own DDL run through
 * the Data API as the deploy runs them. `{{TABLES}}` and `{{SCHEMA}}` are the construct file's.
 */
const SQL_DATABASE = `/** The database the deploy would make: the dedup table, then the consumer's tables, each through the Data API. */
const DATABASE = { name: 'postgres', dedupTable: 'eo_dedup' };
let postgres: RunningPostgres;
let gateway: DataApiGateway;
let dataApi: RDSDataClient;
beforeAll(async () => {
  postgres = await startPostgres();
  gateway = await startDataApiGateway({ postgres: postgres.connection });
  dataApi = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  for (const statement of [...dedupTableDdl(DATABASE.dedupTable), ...{{SCHEMA}}]) {
    await dataApi.send(new ExecuteStatementCommand({ resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN, database: DATABASE.name, sql: statement }));
  }
}, 60_000);
afterAll(async () => {
  dataApi?.destroy();
  await gateway?.stop();
  await postgres?.stop();
});

/** The handler's session: the Data API, through the local gateway. */
function session(): DataApiSession {
  return new DataApiSession({ client: dataApi, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN, database: DATABASE.name });
}

/** Rows of one of the consumer's tables whose \`key\` is one of \`keys\`, as \`{ [column]: Number(value) }\`, read straight from PostgreSQL. */
async function byKey(table: string, column: string, value: string, keys: readonly string[]): Promise<Record<string, number>> {
  const reader = await PostgresSession.connect(postgres.connection);
  try {
    const { rows } = await reader.query<Record<string, string>>(\`SELECT \${column} AS id, \${value} AS value FROM \${table} WHERE key = ANY($1)\`, [keys]);
    return Object.fromEntries(rows.map((row) => [row.id, Number(row.value)]));
  } finally {
    await reader.close();
  }
}

/** The totals of \`keys\`, by key. */
const totalsOf = (...keys: string[]): Promise<Record<string, number>> => byKey({{TABLES}}.totals, 'key', 'total', keys);
/** The entries of \`keys\`: each event applied, by event id, with its amount. */
const entriesOf = (...keys: string[]): Promise<Record<string, number>> => byKey({{TABLES}}.entries, 'event_id', 'amount', keys);`;

const SQL_WIRING: Wiring = {
  resources: [],
  config: ['SQL_DEDUP_TABLE: DATABASE.dedupTable,', 'ENTRIES_TABLE: {{TABLES}}.entries,', 'TOTALS_TABLE: {{TABLES}}.totals,'],
  returns: [],
  handlerArgs: '',
};

function envelopeSql(): TestParts {
  return {
    imports: [...SQL_IMPORTS, ['{{runtime}}', 'createEnvelope'], ['{{runtime}}', 'type Envelope']],
    helpers: `/** An event as the producer publishes it: the same key and id give the same eventId. */
function entry(key: string, id: string, amount: number): Envelope<{{Pascal}}Payload> {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${key}:\${id}\`, source: 'test', payload: { key, amount }, occurredAt: OCCURRED_AT });
}

${SQL_DATABASE}`,
    ...SQL_WIRING,
    duplicate: {
      setup: `const first = entry('home', 'view-1', 3);
const second = entry('home', 'view-2', 4);`,
      batch: '[first, first, second]',
      count: 3,
      expect: 'expect(await totalsOf(\'home\')).toEqual({ home: 7 });\nexpect(await entriesOf(\'home\')).toEqual({ [first.eventId]: 3, [second.eventId]: 4 });',
    },
    poison: {
      setup: '',
      valid: "entry('pricing', 'view-1', 5)",
      expect: "expect(await totalsOf('pricing')).toEqual({ pricing: 5 });\nexpect(await entriesOf('pricing')).toEqual({ [valid.eventId]: 5 });",
    },
  };
}

function streamSql(): TestParts {
  return {
    imports: SQL_IMPORTS,
    helpers: SQL_DATABASE,
    ...SQL_WIRING,
    duplicate: {
      setup: `for (const pk of ['item-1', 'item-2', 'item-3']) await put(setup.source, { pk, category: 'books' });
await put(setup.source, { pk: 'item-1', category: 'games', title: 'Second edition' });
await remove(setup.source, 'item-2');`,
      eventNames: "['INSERT', 'INSERT', 'INSERT', 'MODIFY', 'REMOVE']",
      expect: `// item-1 moved from books to games, item-2 was removed: each change counted once.
expect(await totalsOf('books', 'games')).toEqual({ books: 1, games: 1 });
expect(await entriesOf('item-1', 'item-2', 'item-3')).toEqual(Object.fromEntries(records.map((record, index) => [record.eventID, [1, 1, 1, 0, -1][index]])));`,
    },
    poison: {
      setup: `await put(setup.source, { pk: 'item-4', category: 'toys' });
await put(setup.source, { pk: 'item-5' });`,
      pk: 'item-5',
      expect: "expect(await totalsOf('toys')).toEqual({ toys: 1 });\nexpect(await entriesOf('item-4', 'item-5')).toEqual({ [records[0]?.eventID ?? '']: 1 });",
    },
  };
}
