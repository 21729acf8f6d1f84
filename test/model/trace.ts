/** A run's history as a few lines per invocation, for a counterexample that can be read without rerunning it. */
import type { RunHistory } from './runner';

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
  const lines = [`${schedule.source}, ${schedule.strategy}, batch ${schedule.batchSize}, ${settings}`, `published: ${published.join(' ')}`];
  const label = new Map(source.published.map((publication) => [publication.eventId, `e${publication.event}`]));
  for (const record of history.invocations) {
    const got = record.records.map((delivered) => `${delivered.itemIdentifier}#${delivered.receiveCount}`).join(' ');
    const answer = record.answer === 'failed' ? 'FAILED' : `reported [${record.answer.batchItemFailures.map((failure) => failure.itemIdentifier).join(' ')}]`;
    const dlq = record.dlqSends.map((wrapper) => `${wrapper.source.itemIdentifier}:${wrapper.reason}/${wrapper.error.name}`).join(' ');
    const notes = [record.crashed && 'crashed', record.dlqDown && 'DLQ down', record.lateAck && 'late ack'].filter(Boolean).join(', ');
    lines.push(`  #${record.invocation} got ${got} -> ${answer}; applied [${record.applied.map((eventId) => label.get(eventId) ?? eventId).join(' ')}]; ran [${record.handlerRuns.join(' ')}]${dlq ? `; DLQ ${dlq}` : ''}${notes ? `; ${notes}` : ''}`);
  }
  if (source.movedBySqs.length > 0) lines.push(`moved by SQS: ${source.movedBySqs.join(' ')}`);
  if (source.onFailure.length > 0) lines.push(`on-failure ranges: ${source.onFailure.map((range) => `${range.startSequenceNumber}..${range.endSequenceNumber}`).join(' ')}`);
  return lines.join('\n');
}
