/** The demo's report: the JSON the issue specifies, the summary table, and the invariants. */
import { awsContractRows, type AwsContractReport } from './aws-contract';
import type { ConsumerReport } from './consumers';
import { notificationViolations } from './notifications';
import type { Mismatch, Verification } from './verify';

/** One DLQ after the fix-and-redrive phase. */
export interface DlqRedrive {
  readonly queue: string;
  /** Sent back to their source and deleted from the DLQ. */
  readonly redriven: number;
  /** Still in the DLQ after the second drain (including anything that failed again). */
  readonly remaining: number;
  /** What remains, by error type (a pointer's on-failure condition; `MovedBySqs` for messages without context). */
  readonly remainingByError: Readonly<Record<string, number>>;
}

/** The fix-and-redrive phase: the counter accepts schema 2, every DLQ's curable messages are redriven, the stack drained again. */
export interface RedriveReport {
  /** Over every DLQ. */
  readonly redriven: number;
  /** Over every DLQ. */
  readonly remainingInDlq: number;
  readonly queues: readonly DlqRedrive[];
  readonly exactAfter: boolean;
  readonly alarmsConsistent: boolean;
}

export interface DemoReport {
  readonly seed: number;
  readonly published: { readonly logicalEvents: number; readonly messages: number; readonly producerRetries: number; readonly poison: number };
  readonly deliveries: { readonly total: number; readonly duplicates: number };
  readonly faults: { readonly crashAfterCommit: number; readonly visibilityExpired: number; readonly throttled: number; readonly serverErrors: number; readonly duplicateBatches: number };
  readonly effects: { readonly exact: boolean; readonly mismatches: Mismatch[] };
  /** `missing`: shipped orders never notified; `pending`: shipped orders whose notification waited in a DLQ for the redrive. */
  readonly notifications: { readonly expected: number; readonly sent: number; readonly missing: readonly string[]; readonly pending: number };
  readonly dlq: { readonly messages: number; readonly withContext: number; readonly appliedWithoutContext: number };
  /** Valid events whose failure waited in a DLQ after the first drain, for the redrive to bring in. */
  readonly waitingForRedrive: number;
  readonly lost: number;
  readonly alarms: { readonly notifications: number };
  readonly redrive?: RedriveReport;
  /** One line per consumer, after the redrive: its source (`sqs`, `sqs-fifo`, `sns-sqs`, `kinesis`, `dynamodb-stream`), deliveries and exactness. */
  readonly consumers?: readonly ConsumerReport[];
  /** The AWS contract layer over the whole run: requests checked, refused, IAM checks and denials, conflicts raised. */
  readonly aws?: AwsContractReport;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
  /** Invariants that failed; empty when the run proves the effects exact. */
  readonly violations: string[];
}

/** The invariants a run must hold, as readable sentences. */
export function violationsOf(verification: Verification): string[] {
  const violations: string[] = [];
  if (!verification.effects.exact) violations.push(`${verification.effects.mismatches.length} counters or orders differ from the expected state`);
  violations.push(...notificationViolations(verification.notifications));
  if (verification.lost > 0) violations.push(`${verification.lost} valid events were neither applied nor in a DLQ (e.g. ${verification.lostExamples.join(', ')})`);
  if (verification.dlq.poison !== verification.dlq.poisonPublished) violations.push(`${verification.dlq.poisonPublished - verification.dlq.poison} poison messages are not in a DLQ with their context`);
  const unexplained = verification.dlq.messages - verification.dlq.withContext - verification.dlq.appliedWithoutContext;
  if (unexplained > 0) violations.push(`${unexplained} DLQ messages carry no failure context and their events were not applied`);
  if (!verification.alarms.alarmed) violations.push('a DLQ held messages but no ALARM notification was published');
  return violations;
}

/** The invariants of the fix-and-redrive phase. */
export function redriveViolationsOf(redrive: RedriveReport, after: Verification): string[] {
  const violations: string[] = [];
  if (!redrive.exactAfter) violations.push(`after the redrive: ${violationsOf(after).join('; ') || 'effects differ'}`);
  if (!redrive.alarmsConsistent) violations.push('after the redrive, a DLQ alarm does not match its queue (ALARM while non-empty, OK once drained)');
  return violations;
}

/** What waits in which DLQ at the end, in one sentence: `PageViewCounterDlq: 3 (InvalidEnvelopeError 2, UnknownEventTypeError 1)`. */
export function whatWaits(redrive: RedriveReport): string {
  const held = redrive.queues.filter((queue) => queue.remaining > 0);
  if (held.length === 0) return 'every DLQ is empty';
  return held.map((queue) => `${queue.queue}: ${queue.remaining} (${Object.entries(queue.remainingByError).map(([error, count]) => `${error} ${count}`).join(', ')})`).join('; ');
}

function redriveRows(report: DemoReport): [string, string][] {
  if (!report.redrive) return [];
  return [
    ['fix deployed, DLQs redriven (remaining)', `${report.redrive.redriven} (${report.redrive.remainingInDlq})`],
    ...report.redrive.queues.filter((queue) => queue.redriven + queue.remaining > 0).map((queue): [string, string] => [`  ${queue.queue}`, `${queue.redriven} redriven, ${queue.remaining} remain`]),
    ['effects exact after the redrive', report.redrive.exactAfter ? 'yes' : 'NO'],
  ];
}

function consumerRows(report: DemoReport): [string, string][] {
  return (report.consumers ?? []).map((consumer): [string, string] => [
    `  ${consumer.name} (${consumer.source})`,
    `${consumer.deliveries} deliveries, ${consumer.duplicateDeliveries} dup., ${consumer.checked ? (consumer.exact ? 'exact' : `NOT exact (${consumer.mismatches})`) : 'not checked'}`,
  ]);
}

function notificationValue(report: DemoReport): string {
  const { sent, expected, missing, pending } = report.notifications;
  const notes = [missing.length > 0 ? `${missing.length} never notified` : '', pending > 0 ? `${pending} waiting in a DLQ` : ''].filter(Boolean);
  return `${sent} (${expected})${notes.length > 0 ? `, ${notes.join(', ')}` : ''}`;
}

function verdict(report: DemoReport): string {
  if (report.violations.length > 0) return `FAIL: ${report.violations.join('; ')}`;
  return `PASS: every effect exact, nothing lost${report.redrive ? `; left in the DLQs: ${whatWaits(report.redrive)}` : ''}`;
}

/** The summary table printed at the end of a run. */
export function summaryTable(report: DemoReport): string {
  return renderRows([
    ['seed', String(report.seed)],
    ['logical events published', String(report.published.logicalEvents)],
    ['messages published (producer retries, poison)', `${report.published.messages} (${report.published.producerRetries}, ${report.published.poison})`],
    ['deliveries to functions (duplicates)', `${report.deliveries.total} (${report.deliveries.duplicates})`],
    ['crashes after commit, before ack', String(report.faults.crashAfterCommit)],
    ['batches held past visibility timeout', String(report.faults.visibilityExpired)],
    ['batches delivered twice', String(report.faults.duplicateBatches)],
    ['DynamoDB throttles / 5xx injected', `${report.faults.throttled} / ${report.faults.serverErrors}`],
    ['effects exact', report.effects.exact ? 'yes' : `NO (${report.effects.mismatches.length} mismatches)`],
    ['shipment notifications (expected)', notificationValue(report)],
    ['DLQ messages (with context)', `${report.dlq.messages} (${report.dlq.withContext})${report.dlq.appliedWithoutContext > 0 ? `, ${report.dlq.appliedWithoutContext} applied, moved by SQS after lost acks` : ''}`],
    ['events waiting in a DLQ for the redrive', String(report.waitingForRedrive)],
    ['lost events', String(report.lost)],
    ['alarm notifications', String(report.alarms.notifications)],
    ...redriveRows(report),
    ...consumerRows(report),
    ...(report.aws ? awsContractRows(report.aws) : []),
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s (${report.eventsPerSecond} events/s)`],
    ['result', verdict(report)],
  ]);
}

/** A two-column table with the values padded to 40 characters (longer ones widen their row). */
export function renderRows(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(42)}+`;
  return [line, ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value.padEnd(40)} |`), line].join('\n');
}
