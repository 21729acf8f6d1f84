/** A run's history as a few lines per invocation, for a counterexample that can be read without rerunning it. */
import type { RunHistory } from './runner';
import type { Schedule, SqlOp } from './schedule';

export function describeRun(history: RunHistory): string {
  const { schedule, source } = history;
  const settings = source.kind === 'sqs'
    ? `maxAttempts ${schedule.maxAttempts}, maxReceiveCount ${source.maxReceiveCount}`
    : `retryAttempts ${schedule.retryAttempts}, bisect ${schedule.bisect}, maxRecordAge ${schedule.maxRecordAgeMs}`;
  const published = source.published.map((publication) => {
    const kind = schedule.events[publication.event]!.kind;
    const failures = schedule.events[publication.event]!.transientFailures;
    return `${publication.itemIdentifier}=e${publication.event}${publication.copy ? `/copy${publication.copy}` : ''}@${publication.group}${kind === 'valid' ? '' : `:${kind}`}${failures ? `:fails${failures}` : ''}`;
  });
  const lines = [`${schedule.source}, ${schedule.strategy}, batch ${schedule.batchSize}, ${settings}`, `published: ${published.join(' ')}`, ...sqlLines(schedule)];
  const label = new Map(source.published.map((publication) => [publication.eventId, `e${publication.event}`]));
  for (const record of history.invocations) {
    const got = record.records.map((delivered) => `${delivered.itemIdentifier}#${delivered.receiveCount}`).join(' ');
    const answer = record.answer === 'failed' ? 'FAILED' : `reported [${record.answer.batchItemFailures.map((failure) => failure.itemIdentifier).join(' ')}]`;
    const dlq = record.dlqSends.map((wrapper) => `${wrapper.source.itemIdentifier}:${wrapper.reason}/${wrapper.error.name}`).join(' ');
    const notes = [record.crashed && 'crashed', record.dlqDown && 'DLQ down', record.lateAck && 'late ack', record.atOnceWith !== undefined && `at once with #${record.atOnceWith} (${record.atOnceBecause})`].filter(Boolean).join(', ');
    lines.push(`  #${record.invocation} got ${got} -> ${answer}; applied [${record.applied.map((eventId) => label.get(eventId) ?? eventId).join(' ')}]; ran [${record.handlerRuns.join(' ')}]${dlq ? `; DLQ ${dlq}` : ''}${notes ? `; ${notes}` : ''}`);
  }
  if (source.movedBySqs.length > 0) lines.push(`moved by SQS: ${source.movedBySqs.join(' ')}`);
  if (source.onFailure.length > 0) lines.push(`on-failure ranges: ${source.onFailure.map((range) => `${range.startSequenceNumber}..${range.endSequenceNumber}`).join(' ')}`);
  return lines.join('\n');
}

/** The `sql` strategy's facts: the Data API's behaviour, each event's operation, the faults by Data API call. */
function sqlLines(schedule: Schedule): string[] {
  if (schedule.sql === undefined) return [];
  const { behaviour, ops } = schedule.sql;
  const each = schedule.events.map((_, event) => `e${event} ${describeOp(ops[event % ops.length]!)}`);
  const faults = schedule.storeFaults.map(({ call, fault }) => `${fault}@${call}`).join(' ');
  const commits = schedule.sql.commitFaults.map(({ call, fault }) => `${fault}@commit>=${call}`).join(' ');
  return [`Data API: ${behaviour}; ops: ${each.join(', ')}`, `faults by Data API call: ${[faults, commits].filter(Boolean).join(' ') || 'none'}`];
}

function describeOp(op: SqlOp): string {
  if (op.kind === 'deposit' || op.kind === 'withdraw') return `${op.kind} ${op.amount} from/to .${op.account}`.replace(' from/to', op.kind === 'deposit' ? ' to' : ' from');
  if (op.kind === 'claim') return `claim r${op.ref}`;
  return `${op.kind} .${op.account}`;
}
