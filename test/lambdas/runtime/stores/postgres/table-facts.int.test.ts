// The catalog facts the SQL strategy's plan rests on (table-facts.ts), read from a real PostgreSQL,
// through a local session and through the Data API gateway (whose answers carry the booleans and
// texts in the Data API's own shapes): each thing that could see an order or a value in between.
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { DataApiSession, sqlIdentifier, type SqlSession } from '../../../../../lambdas/runtime';
import { tableFactsOf, tableFactsStatement, type TableFacts } from '../../../../../lambdas/runtime/stores/postgres/table-facts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../../../emulator/engines/postgres';
import { PostgresSqlSession, withPostgresSession } from '../../../../../emulator/engines/postgres-session';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../../../emulator/gateway/data-api-gateway';

let postgres: RunningPostgres;
let gateway: DataApiGateway;
let client: RDSDataClient;
let local: PostgresSqlSession;

const SCHEMA = [
  'CREATE TABLE counters (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0, ratio double precision NOT NULL DEFAULT 0)',
  'CREATE TABLE checked (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0 CHECK (n >= 0))',
  'CREATE TABLE generated (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0, doubled bigint GENERATED ALWAYS AS (n * 2) STORED)',
  'CREATE TABLE audited (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)',
  'CREATE TABLE audit (k text, n bigint)',
  "CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit VALUES (NEW.k, NEW.n); RETURN NEW; END $$",
  'CREATE TRIGGER audited_rows AFTER INSERT OR UPDATE ON audited FOR EACH ROW EXECUTE FUNCTION audit_row()',
  'CREATE TABLE parents (k text PRIMARY KEY)',
  'CREATE TABLE children (k text PRIMARY KEY, parent text REFERENCES parents (k))',
  'CREATE TABLE tree (k text PRIMARY KEY, up text REFERENCES tree (k))',
  'CREATE TABLE numbered (id bigserial, k text PRIMARY KEY)',
  'CREATE TABLE identified (id bigint GENERATED ALWAYS AS IDENTITY, k text PRIMARY KEY)',
  'CREATE TABLE ranked (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0 UNIQUE)',
  'CREATE TABLE partial (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)',
  'CREATE UNIQUE INDEX partial_positive ON partial (k) WHERE n > 0',
  'CREATE TABLE guarded (k text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)',
  'ALTER TABLE guarded ENABLE ROW LEVEL SECURITY',
  'CREATE VIEW counter_view AS SELECT * FROM counters',
  'CREATE SCHEMA app',
  'CREATE TABLE app."Totals" (k text PRIMARY KEY, n numeric NOT NULL DEFAULT 0)',
];

beforeAll(async () => {
  postgres = await startPostgres();
  await withPostgresSession(postgres.connection, async (admin) => {
    for (const statement of SCHEMA) await admin.query(statement);
  });
  gateway = await startDataApiGateway({ postgres: postgres.connection });
  client = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  local = new PostgresSqlSession(postgres.connection);
});

afterAll(async () => {
  client?.destroy();
  await local?.close();
  await gateway?.stop();
  await postgres?.stop();
});

const TABLES = ['counters', 'checked', 'generated', 'audited', 'parents', 'children', 'tree', 'numbered', 'identified', 'ranked', 'partial', 'guarded', 'counter_view', 'missing', 'app.Totals'];

async function factsThrough(session: SqlSession): Promise<Map<string, TableFacts>> {
  const statement = tableFactsStatement(TABLES.map(sqlIdentifier));
  return session.transaction(async (transaction) => tableFactsOf(await transaction.execute(statement)));
}

describe.each([
  ['a local session', () => local],
  ['the Data API', () => new DataApiSession({ client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN })],
])('through %s', (_name, session) => {
  let facts: Map<string, TableFacts>;
  const of = (table: string): TableFacts => facts.get(sqlIdentifier(table).quoted) as TableFacts;

  beforeAll(async () => {
    facts = await factsThrough(session());
  });

  test('a plain counter table: nothing would see an order or a value in between; its integer columns are exact, a double is not', () => {
    expect(of('counters')).toMatchObject({ found: true, plain: true, checked: false, identity: false });
    expect([...of('counters').linked, ...of('counters').sequences]).toEqual([]);
    expect([...of('counters').exactColumns]).toEqual(['n']);
    expect([...of('counters').uniqueColumns]).toEqual(['k']);
  });

  test('a CHECK constraint and a generated column are checks on each value', () => {
    expect(of('checked').checked).toBe(true);
    expect(of('generated').checked).toBe(true);
  });

  test('a trigger, row-level security and a view are not plain', () => {
    expect(of('audited').plain).toBe(false);
    expect(of('guarded').plain).toBe(false);
    expect(of('counter_view')).toMatchObject({ found: true, plain: false });
  });

  test('foreign keys link both tables, a self-reference links a table to itself', () => {
    expect([...of('children').linked]).toEqual([of('parents').oid]);
    expect([...of('parents').linked]).toEqual([of('children').oid]);
    expect([...of('tree').linked]).toEqual([of('tree').oid]);
  });

  test('a serial column draws from a sequence, an identity column is one', () => {
    expect(of('numbered').sequences.size).toBe(1);
    expect(of('identified').identity).toBe(true);
  });

  test('a unique counter, and a unique index with a predicate, are seen', () => {
    expect([...of('ranked').uniqueColumns].sort()).toEqual(['k', 'n']);
    expect(of('partial').uniqueColumns.has('*')).toBe(true);
  });

  test('a schema-qualified, mixed-case name is resolved as quoted; a missing table is not found', () => {
    expect(of('app.Totals')).toMatchObject({ found: true, plain: true, checked: false });
    expect([...of('app.Totals').exactColumns]).toEqual(['n']);
    expect(of('missing')).toMatchObject({ found: false, plain: false });
  });
});
