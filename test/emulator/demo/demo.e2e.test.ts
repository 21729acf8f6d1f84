/**
 * The main job, end to end: `eo demo` as a user runs it (synthesizing when needed, starting its own
 * engines), on a small workload with every fault on. The test checks the report's invariants, then
 * recomputes the expected state from the dump by itself, without the demo's own verification code.
 */
import { openHeadlessPage } from '../../../tools/browser/headless-page';
import { browserTestsOr, READ_DRAWN_PAGE, type DrawnPage } from '../../helpers/drawn-report';
import type { DemoTimeline } from '../../../emulator/demo/timeline';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..', '..');

/** The demo's environment as a user's shell gives it: nothing keeps the functions on the tools' Node.js (jest.config.js does, for the tests' own stacks). */
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.EO_FUNCTIONS_NODE;
  return env;
}

interface Dumped {
  counters: Record<string, number>;
  orders: Record<string, { status: string; version: number }>;
  notifications: { orderId: string; eventId: string }[];
  ledger: Record<string, { history: number[]; balance: number }>;
  invoices: Record<string, number>;
  payments: Record<string, { invoiceId: string; amountCents: number }>;
}

interface Envelope {
  eventId: string;
  type: string;
  occurredAt: string;
  payload: { pageId?: string; page?: { id: string }; schemaVersion?: number; orderId?: string; status?: string; version?: number; accountId?: string; seq?: number; amount?: number; paymentId?: string; invoiceId?: string; amountCents?: number };
}

/** What exactly-once processing of the published messages must leave behind, from the dump alone. */
function recompute(publishedLines: string[], countSchemaV2: boolean): Dumped {
  const counters: Record<string, number> = {};
  const orders: Record<string, { status: string; version: number }> = {};
  const ledger: Dumped['ledger'] = {};
  const invoices: Dumped['invoices'] = {};
  const payments: Dumped['payments'] = {};
  const seen = new Set<string>();
  for (const line of publishedLines) {
    const envelope = parseEnvelope((JSON.parse(line) as { body: string }).body);
    if (!envelope || seen.has(envelope.eventId)) continue;
    seen.add(envelope.eventId);
    const pageId = envelope.payload.schemaVersion === 2 ? (countSchemaV2 ? envelope.payload.page?.id : undefined) : envelope.payload.pageId;
    if (envelope.type === 'page.viewed' && pageId) {
      for (const key of [`page#${pageId}`, `day#${new Date(envelope.occurredAt).toISOString().slice(0, 10)}`]) counters[key] = (counters[key] ?? 0) + 1;
    }
    const { orderId, status, version } = envelope.payload;
    if (envelope.type === 'order.status-changed' && orderId && status && version && (orders[orderId]?.version ?? 0) < version) orders[orderId] = { status, version };
    const { accountId, seq, amount } = envelope.payload;
    if (envelope.type === 'ledger.entry' && accountId && seq !== undefined && amount !== undefined) {
      // Publish order is the order the FIFO queue keeps for the account.
      const account = ledger[accountId] ?? { history: [], balance: 0 };
      ledger[accountId] = { history: [...account.history, seq], balance: account.balance + amount };
    }
    const { paymentId, invoiceId, amountCents } = envelope.payload;
    if (envelope.type === 'payment.received' && paymentId && invoiceId && amountCents !== undefined) {
      payments[paymentId] = { invoiceId, amountCents };
      invoices[invoiceId] = (invoices[invoiceId] ?? 0) + amountCents;
    }
  }
  const notifications = Object.entries(orders).filter(([, order]) => order.status === 'SHIPPED').map(([orderId]) => ({ orderId, eventId: '' }));
  return { counters, orders, notifications, ledger, invoices, payments };
}

/** The demo's valid events only: a string eventId, a known type, an ISO timestamp. */
function parseEnvelope(body: string): Envelope | undefined {
  try {
    const value = JSON.parse(body) as Envelope;
    const known = value.type === 'page.viewed' || value.type === 'order.status-changed' || value.type === 'ledger.entry' || value.type === 'payment.received';
    return typeof value.eventId === 'string' && known && /^\d{4}-\d{2}-\d{2}T/.test(value.occurredAt) ? value : undefined;
  } catch {
    return undefined;
  }
}

const inBrowser = browserTestsOr('demo.e2e.test.ts');

/** The run's own HTML report, opened in headless Chromium: it drew every consumer's series, point for point, and asked for nothing. */
async function expectChartsOfTheRun(htmlFile: string, timeline: DemoTimeline): Promise<void> {
  const page = await openHeadlessPage(htmlFile);
  try {
    const drawn = await page.evaluate<DrawnPage>(READ_DRAWN_PAGE);
    expect([...page.pageErrors, ...page.consoleErrors]).toEqual([]);
    expect(page.requests).toEqual([page.url]);
    expect(drawn.charts.map((chart) => chart.consumer)).toEqual(timeline.consumers.map((consumer) => consumer.name));
    for (const [index, chart] of drawn.charts.entries()) {
      expect(chart.series.map((line) => [line.series, line.points.length])).toEqual(['deliveries', 'duplicates', 'effects', 'dlqDepth'].map((series) => [series, timeline.consumers[index]?.points.length]));
      // Deliveries were drawn as data, not as a flat line at zero.
      const heights = new Set(chart.series.find((line) => line.series === 'deliveries')?.points.map(([, y]) => y));
      expect(heights.size).toBeGreaterThan(1);
    }
    expect(drawn.strips.map((strip) => strip.rows.map((row) => row.alarm))).toEqual(timeline.consumers.map((consumer) => consumer.alarms));
  } finally {
    await page.close();
  }
}

test('eo demo with every fault on keeps every effect exact and loses nothing', async () => {
  const dumpDir = mkdtempSync(path.join(tmpdir(), 'eo-demo-'));
  const flags = ['--events', '600', '--seed', '7', '--duplicate-rate', '0.3', '--crash-rate', '0.3', '--slow-rate', '0.1', '--throttle-rate', '0.05', '--poison-rate', '0.03', '--producer-retry-rate', '0.1', '--serialization-failure-rate', '0.1', '--payment-share', '0.2'];
  const htmlFile = path.join(dumpDir, 'report.html');
  const { stdout } = await run(path.join(root, 'node_modules', '.bin', 'tsx'), ['bin/eo.ts', 'demo', ...flags, '--json', '-', '--html', htmlFile, '--dump-dir', dumpDir, '--quiet'], { cwd: root, env: userEnv(), maxBuffer: 16 * 1024 * 1024 });
  const report = JSON.parse(stdout) as {
    functionsNode: Record<string, string>;
    violations: string[];
    effects: { exact: boolean };
    lost: number;
    published: { producerRetries: number; poison: number };
    deliveries: { duplicates: number };
    faults: { crashAfterCommit: number; throttled: number; serializationFailures: number };
    dlq: { messages: number; withContext: number; appliedWithoutContext: number; copiesOfDeadLettered: number };
    alarms: { notifications: number };
    notifications: { expected: number; sent: number; missing: string[] };
    redrive?: { exactAfter: boolean; redriven: number; remainingInDlq: number; queues: { queue: string; redriven: number; remaining: number; remainingByError: Record<string, number> }[] };
    aws: { requestsChecked: number; rejected: number; iamChecks: number; iamDenied: number };
    replay?: { changes: string[]; consumers: { consumer: string; complete: boolean; totals: { records: number; applied: number; duplicates: number; skipped: number } }[] };
    rebuilds?: { consumer: string; generation: number; complete: boolean; retries: number; totals: { records: number; applied: number; skipped: number }; tables: { variable: string; same: boolean; equal: number; live: { items: number } }[] }[];
    consumers: { name: string; source: string; deliveries: number; duplicateDeliveries: number; checked: boolean; exact: boolean }[];
    timeline: DemoTimeline;
  };
  // The example's functions are nodejs24.x: the demo ran again on Node.js 24 and ran them in its own threads.
  expect(report.functionsNode).toEqual({ 'nodejs24.x': expect.stringMatching(/^24\.\d+\.\d+$/) });
  expect(report.violations).toEqual([]);
  // Page views reach their queue through the SNS topic (raw delivery); payments go into PostgreSQL; each consumer is exact on its own.
  expect(report.consumers.map(({ name, source, checked, exact }) => ({ name, source, checked, exact }))).toEqual([
    { name: 'page-view-counter', source: 'sns-sqs', checked: true, exact: true },
    { name: 'order-projection', source: 'kinesis', checked: true, exact: true },
    { name: 'shipment-notifier', source: 'dynamodb-stream', checked: true, exact: true },
    { name: 'account-ledger', source: 'sqs-fifo', checked: true, exact: true },
    { name: 'invoice-payments', source: 'sqs', checked: true, exact: true },
  ]);
  for (const consumer of report.consumers) expect(consumer.deliveries).toBeGreaterThan(0);
  // Everything went through the AWS contract layer: no request AWS would refuse, no call IAM would deny.
  expect(report.aws.requestsChecked).toBeGreaterThan(0);
  expect(report.aws.iamChecks).toBeGreaterThan(0);
  expect(report.aws).toMatchObject({ rejected: 0, iamDenied: 0 });
  expect(report.effects.exact).toBe(true);
  expect(report.lost).toBe(0);
  // The faults really happened: otherwise the run proves nothing.
  expect(report.published.producerRetries).toBeGreaterThan(0);
  expect(report.published.poison).toBeGreaterThan(0);
  expect(report.deliveries.duplicates).toBeGreaterThan(0);
  expect(report.faults.crashAfterCommit).toBeGreaterThan(0);
  expect(report.faults.throttled).toBeGreaterThan(0);
  // The SQL consumer was faulted too: duplicates delivered to it, serialization failures in its transactions.
  expect(report.consumers.find((consumer) => consumer.name === 'invoice-payments')?.duplicateDeliveries).toBeGreaterThan(0);
  expect(report.faults.serializationFailures).toBeGreaterThan(0);
  // Every DLQ message carries its context, or SQS moved it after its event was applied (acks lost maxReceiveCount times),
  // or after the runtime had dead-lettered its event with context on the final receive.
  expect(report.dlq.withContext + report.dlq.appliedWithoutContext + report.dlq.copiesOfDeadLettered).toBe(report.dlq.messages);
  expect(report.alarms.notifications).toBeGreaterThan(0);
  expect(report.notifications.missing).toEqual([]);
  // The redrive went through every DLQ of the stack (the three queue consumers', the two stream consumers'
  // on-failure queues, the rebuilt generation's, empty, and the SQL database's expiry DLQ, a
  // schedule's); what remains is what no fix cures, and nothing the fix or time cures.
  expect(report.redrive?.queues).toHaveLength(7);
  for (const queue of report.redrive?.queues ?? []) expect(Object.values(queue.remainingByError).reduce((sum, count) => sum + count, 0)).toBe(queue.remaining);
  const remainingErrors = new Set(report.redrive?.queues.flatMap((queue) => Object.keys(queue.remainingByError)));
  for (const cured of ['SchemaViolationError', 'RetriesExhaustedError', 'OutOfTimeError', 'EffectInProgressError']) expect(remainingErrors).not.toContain(cured);
  // After the redrive, a replay of the whole run through both stream consumers went through every
  // record, applied none again and changed nothing; the shipped orders' notifications were duplicates.
  expect(report.replay?.changes).toEqual([]);
  expect(report.replay?.consumers.map(({ consumer, complete, totals }) => ({ consumer, complete, applied: totals.applied }))).toEqual([
    { consumer: 'order-projection', complete: true, applied: 0 },
    { consumer: 'shipment-notifier', complete: true, applied: 0 },
  ]);
  for (const consumer of report.replay?.consumers ?? []) expect(consumer.totals.duplicates + consumer.totals.skipped).toBeGreaterThan(0);
  expect(report.replay?.consumers[1]?.totals.duplicates).toBeGreaterThanOrEqual(report.notifications.sent);
  // Then the order projection's generation 2 (its mapping off) was filled from the stream by the
  // replay's code and held against the live orders table by the compare's: every order the same.
  expect(report.rebuilds?.map(({ consumer, generation, complete, tables }) => ({ consumer, generation, complete, tables: tables.map(({ variable, same }) => ({ variable, same })) }))).toEqual([
    { consumer: 'order-projection', generation: 2, complete: true, tables: [{ variable: 'ORDERS_TABLE', same: true }] },
  ]);
  const [rebuild] = report.rebuilds ?? [];
  expect(rebuild?.totals.applied).toBeGreaterThan(0);
  expect(rebuild?.tables[0]?.equal).toBe(rebuild?.tables[0]?.live.items);
  expect(rebuild?.tables[0]?.equal).toBeGreaterThan(0);
  // Its mapping is off, and local mode left it off: the replay wrote every order of the rebuilt table.
  // With no batch sent again, each order's row was applied by the replay; a batch sent again after
  // its invocation died (the demo's crashes reach the replay's invocations too) finds what that
  // invocation wrote not newer, so those records count as skipped, and only then may they fill the gap.
  const equalRows = rebuild?.tables[0]?.equal ?? Number.POSITIVE_INFINITY;
  if (rebuild?.retries === 0) expect(rebuild.totals.applied).toBeGreaterThanOrEqual(equalRows);
  else expect((rebuild?.totals.applied ?? 0) + (rebuild?.totals.skipped ?? 0)).toBeGreaterThanOrEqual(equalRows);

  // The timeline: every consumer period by period, every alarm evaluated locally but Throttles and IteratorAge.
  const { timeline } = report;
  expect(timeline.consumers.map((consumer) => consumer.name)).toEqual(report.consumers.map((consumer) => consumer.name));
  for (const [index, consumer] of timeline.consumers.entries()) {
    const handed = consumer.points.reduce((sum, point) => sum + point.deliveries, 0);
    expect(handed).toBeGreaterThan(0);
    expect(handed).toBeLessThanOrEqual(report.consumers[index]?.deliveries ?? 0);
    expect(consumer.points.reduce((sum, point) => sum + point.effects, 0)).toBeGreaterThan(0);
    expect(consumer.alarms.length).toBeGreaterThanOrEqual(6);
  }
  // Not evaluated: what nothing local publishes, each stream consumer's IteratorAge (the rebuilt
  // generation's too) and every Throttles. The rebuilt generation's mapping is off: its counts are
  // evaluated, empty, as on AWS.
  expect(timeline.alarms.filter((alarm) => !alarm.evaluated).map((alarm) => alarm.metric).sort()).toEqual([...Array(3).fill('AWS/Lambda IteratorAge'), ...Array(6).fill('AWS/Lambda Throttles')]);
  for (const alarm of timeline.alarms.filter((candidate) => candidate.evaluated)) expect(alarm.states.length).toBeGreaterThan(1);
  // A crash after commit is a dead invocation: with 30% of batches crashing, some consumer's Errors alarm fired.
  expect(timeline.alarms.some((alarm) => alarm.alarmName.includes('ConsumerAlarmsErrors') && alarm.states.some((state) => state.state === 'ALARM'))).toBe(true);
  if (inBrowser) await expectChartsOfTheRun(htmlFile, timeline);

  const published = readFileSync(path.join(dumpDir, 'published.jsonl'), 'utf8').trim().split('\n');
  const dumped = JSON.parse(readFileSync(path.join(dumpDir, 'state.json'), 'utf8')) as Dumped;
  const expected = recompute(published, report.redrive !== undefined);
  expect(dumped.counters).toEqual(expected.counters);
  expect(dumped.orders).toEqual(expected.orders);
  expect(Object.keys(expected.ledger).length).toBeGreaterThan(0);
  expect(dumped.ledger).toEqual(expected.ledger);
  // The payments, recomputed from what was published, against what PostgreSQL holds.
  expect(Object.keys(expected.payments).length).toBeGreaterThan(0);
  expect(dumped.invoices).toEqual(expected.invoices);
  expect(dumped.payments).toEqual(expected.payments);
  expect(dumped.notifications.map((n) => n.orderId).sort()).toEqual(expected.notifications.map((n) => n.orderId).sort());
  expect(new Set(dumped.notifications.map((n) => n.eventId)).size).toBe(dumped.notifications.length);
}, 240_000);

test('eo demo with 8 pollers on the page-views queue stays exact while the contract layer raises TransactionConflict as DynamoDB would', async () => {
  // Small batches, many pollers: concurrent transactions all touch their day's counter item.
  const flags = ['--events', '800', '--seed', '11', '--concurrency', '8', '--sqs-batch-size', '10', '--sqs-batching-window', '0', '--page-view-share', '0.9'];
  const { stdout } = await run(path.join(root, 'node_modules', '.bin', 'tsx'), ['bin/eo.ts', 'demo', ...flags, '--json', '-', '--quiet'], { cwd: root, env: userEnv(), maxBuffer: 16 * 1024 * 1024 });
  const report = JSON.parse(stdout) as { violations: string[]; effects: { exact: boolean }; lost: number; aws: { transactionConflicts: number; rejected: number; iamDenied: number } };
  expect(report.violations).toEqual([]);
  expect(report.effects.exact).toBe(true);
  expect(report.lost).toBe(0);
  expect(report.aws.transactionConflicts).toBeGreaterThan(0);
  expect(report.aws).toMatchObject({ rejected: 0, iamDenied: 0 });
}, 240_000);
