/** The demo's report: the JSON the issue specifies, the summary table, and the invariants. */
import { awsContractRows, awsContractViolations, type AwsContractReport } from './aws-contract';
import type { ConsumerReport } from './consumers';
import { notificationViolations, type NotificationCheck } from './notifications';
import type { ReplayReport } from './replay-phase';
import type { RebuildReport } from './rebuild-phase';
import type { DemoTimeline } from './timeline';
import { latencyLabel, type LatencyProfileLabel } from '../gateway/latency';
import { managedInstancesRows, type ManagedInstancesFunctionReport } from './managed-instances';
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
  /** The latency profile of the run's contract layer. @default - absent from reports built before profiles existed */
  readonly latencyProfile?: LatencyProfileLabel;
  /** The Node.js version each runtime's functions ran on, e.g. `{ "nodejs24.x": "24.22.3" }`. @default - absent from reports built before it was kept */
  readonly functionsNode?: Readonly<Record<string, string>>;
  /** The functions on Lambda Managed Instances (`--managed-instances`), by logical id. @default - absent from a run in Lambda's default model */
  readonly managedInstances?: Readonly<Record<string, ManagedInstancesFunctionReport>>;
  readonly published: { readonly logicalEvents: number; readonly messages: number; readonly producerRetries: number; readonly poison: number };
  readonly deliveries: { readonly total: number; readonly duplicates: number };
  readonly faults: { readonly crashAfterCommit: number; readonly visibilityExpired: number; readonly throttled: number; readonly serverErrors: number; readonly serializationFailures: number; readonly duplicateBatches: number };
  readonly effects: { readonly exact: boolean; readonly mismatches: Mismatch[] };
  /** `missing`: shipped orders never notified; `pending`: shipped orders whose notification waited in a DLQ for the redrive. */
  readonly notifications: { readonly expected: number; readonly sent: number; readonly missing: readonly string[]; readonly pending: number };
  readonly dlq: { readonly messages: number; readonly withContext: number; readonly appliedWithoutContext: number; readonly copiesOfDeadLettered: number };
  /** Valid events whose failure waited in a DLQ after the first drain, for the redrive to bring in. */
  readonly waitingForRedrive: number;
  readonly lost: number;
  readonly alarms: { readonly notifications: number };
  readonly redrive?: RedriveReport;
  /** The replay of the whole run through the stream consumers after the redrive. @default - absent from reports built before replays */
  readonly replay?: ReplayReport;
  /** Each rebuilt generation, filled from its stream after the replay and compared with the live one. @default - absent from reports built before rebuilds */
  readonly rebuilds?: readonly RebuildReport[];
  /** One line per consumer, after the redrive: its source (`sqs`, `sqs-fifo`, `sns-sqs`, `kinesis`, `dynamodb-stream`), deliveries and exactness. */
  readonly consumers?: readonly ConsumerReport[];
  /** The AWS contract layer over the whole run: requests checked, refused, IAM checks and denials, conflicts raised. */
  readonly aws?: AwsContractReport;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
  /** Invariants that failed; empty when the run proves the effects exact. */
  readonly violations: string[];
  /** Every invariant checked, with its verdict (`violations` are the failed ones' sentences). @default - absent from reports built before verdicts were kept */
  readonly invariants?: readonly InvariantVerdict[];
  /** What happened period by period (deliveries, duplicates, effects, DLQ depth, alarm states): the HTML report's charts. @default - absent for a run that stopped early */
  readonly timeline?: DemoTimeline;
}

/** One invariant of a run and whether it held; `detail` is the violation's sentence when it failed. */
export interface InvariantVerdict {
  readonly invariant: string;
  readonly held: boolean;
  readonly detail?: string;
}

/** The verdict of `invariant`: held unless there is a `violation` to report. */
function verdictOf(invariant: string, violation: string | undefined): InvariantVerdict {
  return violation === undefined ? { invariant, held: true } : { invariant, held: false, detail: violation };
}

/** The sentences of the verdicts that failed, in order. */
export function failedSentences(verdicts: readonly InvariantVerdict[]): string[] {
  return verdicts.filter((verdict) => !verdict.held).map((verdict) => verdict.detail ?? verdict.invariant);
}

/** Every invariant a run must hold, each with its verdict. */
export function invariantsOf(verification: Verification): InvariantVerdict[] {
  const { effects, lost, lostExamples, dlq } = verification;
  const unexplained = dlq.messages - dlq.withContext - dlq.appliedWithoutContext - dlq.copiesOfDeadLettered;
  return [
    verdictOf('every counter, order, ledger entry, invoice and payment equals the expected state', effects.exact ? undefined : `${effects.mismatches.length} counters, orders, accounts, invoices or payments differ from the expected state`),
    ...notificationInvariants(verification.notifications),
    verdictOf('every valid event is applied or in a DLQ', lost > 0 ? `${lost} valid events were neither applied nor in a DLQ (e.g. ${lostExamples.join(', ')})` : undefined),
    verdictOf('every poison message is in a DLQ with its context', dlq.poison !== dlq.poisonPublished ? `${dlq.poisonPublished - dlq.poison} poison messages are not in a DLQ with their context` : undefined),
    verdictOf('every DLQ message carries its failure context, or its event was applied or is in a DLQ with its context', unexplained > 0 ? `${unexplained} DLQ messages carry no failure context and their events were neither applied nor dead-lettered with it` : undefined),
    verdictOf('a DLQ that held messages raised an ALARM notification', verification.alarms.alarmed ? undefined : 'a DLQ held messages but no ALARM notification was published'),
  ];
}

/** One verdict per notification check, each with the sentence notifications.ts writes for it alone. */
function notificationInvariants(check: NotificationCheck): InvariantVerdict[] {
  const only = (field: 'missing' | 'duplicated' | 'unexpected'): string | undefined => notificationViolations({ ...check, missing: [], duplicated: [], unexpected: [], [field]: check[field] })[0];
  return [
    verdictOf('every shipped order is notified', only('missing')),
    verdictOf('no order is notified more than once', only('duplicated')),
    verdictOf('every notification is for a shipped order', only('unexpected')),
  ];
}

/** The DLQ row: how many messages, how many with context, and what explains those without. */
function dlqValue(dlq: DemoReport['dlq']): string {
  const bare = [
    ...(dlq.appliedWithoutContext > 0 ? [`${dlq.appliedWithoutContext} applied, moved by SQS after lost acks`] : []),
    ...(dlq.copiesOfDeadLettered > 0 ? [`${dlq.copiesOfDeadLettered} copies of events dead-lettered with context, moved by SQS`] : []),
  ];
  return [`${dlq.messages} (${dlq.withContext})`, ...bare].join(', ');
}

/** The invariants a run must hold that failed, as readable sentences. */
export function violationsOf(verification: Verification): string[] {
  return failedSentences(invariantsOf(verification));
}

/** Every invariant of the fix-and-redrive phase, each with its verdict. */
export function redriveInvariantsOf(redrive: RedriveReport, after: Verification): InvariantVerdict[] {
  return [
    verdictOf('after the redrive, every effect is exact and every invariant holds', redrive.exactAfter ? undefined : `after the redrive: ${violationsOf(after).join('; ') || 'effects differ'}`),
    verdictOf('after the redrive, every DLQ alarm matches its queue', redrive.alarmsConsistent ? undefined : 'after the redrive, a DLQ alarm does not match its queue (ALARM while non-empty, OK once drained)'),
  ];
}

/** The invariants of the fix-and-redrive phase that failed. */
export function redriveViolationsOf(redrive: RedriveReport, after: Verification): string[] {
  return failedSentences(redriveInvariantsOf(redrive, after));
}

/** The replay phase's invariants: nothing changed, nothing was applied, every record went through. */
export function replayInvariantsOf(replay: ReplayReport): InvariantVerdict[] {
  const applied = replay.consumers.filter((consumer) => consumer.totals.applied > 0);
  const incomplete = replay.consumers.filter((consumer) => !consumer.complete);
  return [
    verdictOf('a replay of the whole run through the stream consumers changes nothing', replay.changes.length > 0 ? `the replay changed the state: ${replay.changes.join('; ')}` : undefined),
    verdictOf('a replay of the whole run applies no record again', applied.length > 0 ? `the replay applied records again: ${applied.map((consumer) => `${consumer.consumer} ${consumer.totals.applied}`).join(', ')}` : undefined),
    verdictOf('a replay of the whole run goes through every record', incomplete.length > 0 ? `the replay stopped short: ${incomplete.map((consumer) => `${consumer.consumer} (${(consumer.stopped ?? ['every record sent, some reported']).join('; ')})`).join(', ')}` : undefined),
  ];
}

/** The rebuild phase's invariant, per rebuilt generation: filled from every record of its stream, it holds what the live generation holds. */
export function rebuildInvariantsOf(rebuilds: readonly RebuildReport[]): InvariantVerdict[] {
  return rebuilds.map((rebuild) => {
    const differing = rebuild.tables.filter((table) => !table.same);
    const why = [
      ...(rebuild.complete ? [] : [`the replay into it stopped short (${(rebuild.stopped ?? ['every record sent, some reported']).join('; ')})`]),
      ...(rebuild.tables.length === 0 ? ['it writes no table apart from the live generation'] : []),
      ...differing.map((table) => `${table.variable}: ${table.onlyLive} only live, ${table.onlyNext} only rebuilt, ${table.differing} differing (${table.examples.slice(0, 3).map((example) => example.key).join(', ')})`),
    ];
    return verdictOf(`a rebuild of ${rebuild.consumer} into generation ${rebuild.generation} from its stream equals the live state`, why.length > 0 ? why.join('; ') : undefined);
  });
}

/** The contract layer's invariant: AWS would accept every request and IAM grant every call (its sentences in aws-contract.ts). */
export function awsContractInvariant(aws: AwsContractReport): InvariantVerdict {
  const violations = awsContractViolations(aws);
  return verdictOf('AWS would accept every request and IAM grant every call', violations.length > 0 ? violations.join('; ') : undefined);
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

function replayRows(report: DemoReport): [string, string][] {
  if (!report.replay) return [];
  const unchanged = report.replay.changes.length === 0;
  return [
    ['replay of the whole run (stream consumers)', unchanged ? 'state unchanged' : `CHANGED: ${report.replay.changes.join('; ')}`],
    ...report.replay.consumers.map((consumer): [string, string] => {
      const { records, applied, duplicates, skipped, permanent } = consumer.totals;
      return [`  ${consumer.consumer}`, `${records} records: ${applied} applied, ${duplicates} dup., ${skipped} not newer, ${permanent} poison${consumer.complete ? '' : ', INCOMPLETE'}`];
    }),
  ];
}

function rebuildRows(report: DemoReport): [string, string][] {
  return (report.rebuilds ?? []).map((rebuild): [string, string] => {
    const tables = rebuild.tables.map((table) => `${table.variable} ${table.same ? `same (${table.equal} items)` : `DIFFERS (${table.onlyLive + table.onlyNext + table.differing})`}`).join(', ');
    return [`rebuild of ${rebuild.consumer} into generation ${rebuild.generation}`, `${rebuild.totals.applied} of ${rebuild.totals.records} records applied${rebuild.retries > 0 ? ` (${rebuild.retries} batch(es) sent again)` : ''}${rebuild.complete ? '' : ', INCOMPLETE'}; ${tables || 'no table apart'}`];
  });
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

/** The latency profile's row, for a report that names one. */
function latencyRow(report: DemoReport): [string, string][] {
  const profile = report.latencyProfile;
  return profile ? [['latency profile', latencyLabel(profile)]] : [];
}

/** Which Node.js ran the functions, for a report that says. */
function functionsNodeRow(report: DemoReport): [string, string][] {
  const nodes = Object.entries(report.functionsNode ?? {});
  return nodes.length === 0 ? [] : [['functions ran on', nodes.map(([runtime, version]) => `Node.js ${version} (${runtime})`).join(', ')]];
}

/** The summary table printed at the end of a run. */
export function summaryTable(report: DemoReport): string {
  return renderRows(summaryRows(report));
}

/** The rows of the summary table, label and value: the terminal and the HTML report show the same. */
export function summaryRows(report: DemoReport): [string, string][] {
  return [
    ['seed', String(report.seed)],
    ...latencyRow(report),
    ...functionsNodeRow(report),
    ...managedInstancesRows(report.managedInstances),
    ['logical events published', String(report.published.logicalEvents)],
    ['messages published (producer retries, poison)', `${report.published.messages} (${report.published.producerRetries}, ${report.published.poison})`],
    ['deliveries to functions (duplicates)', `${report.deliveries.total} (${report.deliveries.duplicates})`],
    ['crashes after commit, before ack', String(report.faults.crashAfterCommit)],
    ['batches held past visibility timeout', String(report.faults.visibilityExpired)],
    ['batches delivered twice', String(report.faults.duplicateBatches)],
    ['DynamoDB throttles / 5xx injected', `${report.faults.throttled} / ${report.faults.serverErrors}`],
    ['Data API serialization failures injected', String(report.faults.serializationFailures)],
    ['effects exact', report.effects.exact ? 'yes' : `NO (${report.effects.mismatches.length} mismatches)`],
    ['shipment notifications (expected)', notificationValue(report)],
    ['DLQ messages (with context)', dlqValue(report.dlq)],
    ['events waiting in a DLQ for the redrive', String(report.waitingForRedrive)],
    ['lost events', String(report.lost)],
    ['alarm notifications', String(report.alarms.notifications)],
    ...redriveRows(report),
    ...replayRows(report),
    ...rebuildRows(report),
    ...consumerRows(report),
    ...(report.aws ? awsContractRows(report.aws) : []),
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s (${report.eventsPerSecond} events/s)`],
    ['result', verdict(report)],
  ];
}

/** A two-column table with the values padded to 40 characters (longer ones widen their row). */
export function renderRows(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(42)}+`;
  return [line, ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value.padEnd(40)} |`), line].join('\n');
}
