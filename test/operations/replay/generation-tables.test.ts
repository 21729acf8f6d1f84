/**
 * `eo replay --generation`'s refusal of a generation that writes to an earlier generation's tables:
 * a rebuilt generation keys its dedup records apart, so a replay into it applies every event, and
 * into a table the live generation writes to, a second time. DynamoDB tables are told by the
 * function's variables; a SQL consumer's by `SQL_EFFECT_TABLES` on its cluster and database, and one
 * that declares none is refused unless the operator allows it. A SQL consumer's dedup TTL bounds a
 * replay's window as a DynamoDB consumer's does.
 */
import { SQL_ENV } from '../../../aws/consumer-env';
import type { ConsumerFunction, ConsumerWindow, StackTopology } from '../../../operations/dlq';
import { planReplay, ReplayRefusedError, type PlanOptions } from '../../../operations/replay';

const STREAM = 'arn:aws:kinesis:eu-west-1:123456789012:stream/payments';
const CLUSTER = 'arn:aws:rds:eu-west-1:123456789012:cluster:effects';
const NOW = Date.parse('2026-12-02T12:00:00Z');
const DAY_MS = 86_400_000;

/** A function of the consumer `payments` at `generation`, with these variables. */
function generation(generation: number, environment: Record<string, string>): ConsumerFunction {
  return { functionName: `payments-g${generation}`, consumer: generation === 1 ? 'payments' : `payments@g${generation}`, name: 'payments', generation, sourceArn: STREAM, mappingEnabled: generation === 1, environment };
}

/** A SQL consumer's variables, as `connect` sets them; `tables` in `SQL_EFFECT_TABLES` when given. */
function sql(tables?: string, database = 'effects'): Record<string, string> {
  return { [SQL_ENV.resourceArn]: CLUSTER, [SQL_ENV.secretArn]: 'arn:secret', [SQL_ENV.database]: database, [SQL_ENV.dedupTable]: 'eo_dedup', ...(tables !== undefined && { [SQL_ENV.effectTables]: tables }) };
}

function topology(functions: readonly ConsumerFunction[], windows: readonly ConsumerWindow[] = []): StackTopology {
  const tables = ['Ledger', 'LedgerV2', 'Idempotency'].map((name) => ({ name, arn: `arn:aws:dynamodb:eu-west-1:123456789012:table/${name}` }));
  return { stackName: 'S', region: 'eu-west-1', outputs: {}, deadLetterQueues: [], queues: [], streams: [{ name: 'payments', arn: STREAM, retentionHours: 24 * 7 }], tables, consumerWindows: windows, consumerFunctions: functions };
}

const plan = (stack: StackTopology, options: Partial<PlanOptions> = { generation: 2 }) => planReplay(stack, 'payments', { fromMs: NOW - 3_600_000, toMs: NOW }, { nowMs: NOW, ...options });

test('a generation writing to the DynamoDB table of the live generation is refused, naming the table; with tables of its own it plans', () => {
  const live = generation(1, { LEDGER_TABLE: 'Ledger', IDEMPOTENCY_TABLE: 'Idempotency' });
  expect(() => plan(topology([live, generation(2, { LEDGER_TABLE: 'Ledger', IDEMPOTENCY_TABLE: 'Idempotency' })]))).toThrow(
    new ReplayRefusedError(
      'generation 2 of payments writes to tables an earlier generation writes to: DynamoDB table Ledger of generation 1. Its dedup records are its own, so a replay into it would apply every event of the window to them again. ' +
        'A rebuilt generation takes effect tables of its own (docs/operations.md, "Rebuild").',
    ),
  );
  // The shared idempotency table is no effect table: each generation keys its records apart.
  expect(plan(topology([live, generation(2, { LEDGER_TABLE: 'LedgerV2', IDEMPOTENCY_TABLE: 'Idempotency' })])).consumer.functionName).toBe('payments-g2');
});

test('a SQL generation declaring a table of the live generation is refused (public. and case aside); one declaring its own, or on another database, plans', () => {
  const live = generation(1, sql('payments,invoices'));
  expect(() => plan(topology([live, generation(2, sql('payments_v2,PUBLIC.Invoices'))]))).toThrow(/writes to tables an earlier generation writes to: SQL table invoices of generation 1 \(database effects\)/);
  expect(plan(topology([live, generation(2, sql('payments_v2,invoices_v2'))])).undeclaredSqlTables).toBeUndefined();
  expect(plan(topology([live, generation(2, sql('payments,invoices', 'effects_v2'))])).consumer.generation).toBe(2);
});

test('a SQL generation that, or whose live generation, declares no effect tables is refused unless --allow-undeclared-sql-tables, which the plan then notes', () => {
  for (const functions of [[generation(1, sql('payments')), generation(2, sql())], [generation(1, sql()), generation(2, sql('payments_v2'))]]) {
    expect(() => plan(topology(functions))).toThrow(/declares no effect tables .*cannot be told.*pass --allow-undeclared-sql-tables/);
    expect(plan(topology(functions), { generation: 2, allowUndeclaredSqlTables: true }).undeclaredSqlTables).toMatch(/^generation 2 of payments and generation 1 write SQL effects to one database/);
  }
  // A live generation on DynamoDB alone shares no SQL table with it.
  expect(plan(topology([generation(1, { LEDGER_TABLE: 'Ledger' }), generation(2, sql())])).consumer.generation).toBe(2);
});

test('the live generation itself, and a consumer with one generation, are not checked', () => {
  const [live, rebuilt] = [generation(1, sql()), generation(2, sql())];
  expect(plan(topology([live, rebuilt]), {}).consumer.generation).toBe(1);
  expect(plan(topology([rebuilt]), { generation: 2 }).consumer.generation).toBe(2);
});

test('a window past a SQL consumer\'s dedup TTL is refused, as a DynamoDB consumer\'s is', () => {
  const window: ConsumerWindow = { consumer: 'payments', sourceArn: STREAM, dedupTtlSeconds: 86_400, sqlDedup: { functionName: 'payments-g1', table: 'eo_dedup', resourceArn: CLUSTER, secretArn: 'arn:secret', database: 'effects' } };
  const stack = topology([generation(1, sql('payments'))], [window]);
  const past = { fromMs: NOW - 2 * DAY_MS, toMs: NOW };
  expect(() => planReplay(stack, 'payments', past, { nowMs: NOW })).toThrow(/past payments's dedup TTL \(86400 s\).*--allow-past-dedup-window/);
  expect(planReplay(stack, 'payments', past, { nowMs: NOW, allowPastDedupWindow: true })).toMatchObject({ dedupTtlSeconds: 86_400, pastDedupWindow: expect.stringContaining('past payments\'s dedup TTL') });
});
