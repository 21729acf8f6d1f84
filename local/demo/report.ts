/** The demo's report: the JSON the issue specifies, the summary table, and the invariants. */
import type { Mismatch, Verification } from './verify';

export interface DemoReport {
  readonly seed: number;
  readonly published: { readonly logicalEvents: number; readonly messages: number; readonly producerRetries: number; readonly poison: number };
  readonly deliveries: { readonly total: number; readonly duplicates: number };
  readonly faults: { readonly crashAfterCommit: number; readonly visibilityExpired: number; readonly throttled: number; readonly serverErrors: number; readonly duplicateBatches: number };
  readonly effects: { readonly exact: boolean; readonly mismatches: Mismatch[] };
  readonly notifications: { readonly expected: number; readonly sent: number };
  readonly dlq: { readonly messages: number; readonly withContext: number; readonly appliedWithoutContext: number };
  readonly lost: number;
  readonly alarms: { readonly notifications: number };
  /** The fix-and-redrive phase: the counter accepts schema 2, its DLQ is redriven, the stack drained again. */
  readonly redrive?: { readonly redriven: number; readonly remainingInDlq: number; readonly exactAfter: boolean; readonly alarmsConsistent: boolean };
  readonly durationMs: number;
  readonly eventsPerSecond: number;
  /** Invariants that failed; empty when the run proves the effects exact. */
  readonly violations: string[];
}

/** The invariants a run must hold, as readable sentences. */
export function violationsOf(verification: Verification): string[] {
  const violations: string[] = [];
  if (!verification.effects.exact) violations.push(`${verification.effects.mismatches.length} counters or orders differ from the expected state`);
  if (!verification.notifications.exact) violations.push(`notifications sent ${verification.notifications.sent}, expected exactly one for each of ${verification.notifications.expected} shipped orders`);
  if (verification.lost > 0) violations.push(`${verification.lost} valid events were neither applied nor in a DLQ (e.g. ${verification.lostExamples.join(', ')})`);
  if (verification.dlq.poison !== verification.dlq.poisonPublished) violations.push(`${verification.dlq.poisonPublished - verification.dlq.poison} poison messages are not in a DLQ with their context`);
  const unexplained = verification.dlq.messages - verification.dlq.withContext - verification.dlq.appliedWithoutContext;
  if (unexplained > 0) violations.push(`${unexplained} DLQ messages carry no failure context and their events were not applied`);
  if (!verification.alarms.alarmed) violations.push('a DLQ held messages but no ALARM notification was published');
  return violations;
}

/** The invariants of the fix-and-redrive phase. */
export function redriveViolationsOf(redrive: NonNullable<DemoReport['redrive']>, after: Verification): string[] {
  const violations: string[] = [];
  if (!redrive.exactAfter) violations.push(`after the redrive: ${violationsOf(after).join('; ') || 'effects differ'}`);
  if (!redrive.alarmsConsistent) violations.push('after the redrive, a DLQ alarm does not match its queue (ALARM while non-empty, OK once drained)');
  return violations;
}

function redriveRows(report: DemoReport): [string, string][] {
  if (!report.redrive) return [];
  return [
    ['fix deployed, DLQ redriven (remaining)', `${report.redrive.redriven} (${report.redrive.remainingInDlq})`],
    ['effects exact after the redrive', report.redrive.exactAfter ? 'yes' : 'NO'],
  ];
}

/** The summary table printed at the end of a run. */
export function summaryTable(report: DemoReport): string {
  const rows: [string, string][] = [
    ['seed', String(report.seed)],
    ['logical events published', String(report.published.logicalEvents)],
    ['messages published (producer retries, poison)', `${report.published.messages} (${report.published.producerRetries}, ${report.published.poison})`],
    ['deliveries to functions (duplicates)', `${report.deliveries.total} (${report.deliveries.duplicates})`],
    ['crashes after commit, before ack', String(report.faults.crashAfterCommit)],
    ['batches held past visibility timeout', String(report.faults.visibilityExpired)],
    ['batches delivered twice', String(report.faults.duplicateBatches)],
    ['DynamoDB throttles / 5xx injected', `${report.faults.throttled} / ${report.faults.serverErrors}`],
    ['effects exact', report.effects.exact ? 'yes' : `NO (${report.effects.mismatches.length} mismatches)`],
    ['shipment notifications (expected)', `${report.notifications.sent} (${report.notifications.expected})`],
    ['DLQ messages (with context)', `${report.dlq.messages} (${report.dlq.withContext})${report.dlq.appliedWithoutContext > 0 ? `, ${report.dlq.appliedWithoutContext} applied, moved by SQS after lost acks` : ''}`],
    ['lost events', String(report.lost)],
    ['alarm notifications', String(report.alarms.notifications)],
    ...redriveRows(report),
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s (${report.eventsPerSecond} events/s)`],
    ['result', report.violations.length === 0 ? 'PASS: every effect exact, nothing lost' : `FAIL: ${report.violations.join('; ')}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(42)}+`;
  return [line, ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value.padEnd(40)} |`), line].join('\n');
}
