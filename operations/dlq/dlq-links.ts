/**
 * Which queue is whose DLQ, from the queues' redrive policies and the template, the same way for
 * a deployed stack (aws-topology.ts) and for local mode (emulator/stack/outputs.ts):
 * - a queue's `RedrivePolicy.deadLetterTargetArn` names its DLQ (`redrive`);
 * - a mapping's `DestinationConfig.OnFailure` names a stream's on-failure queue (`on-failure`);
 * - a mapping whose on-failure destination is a bucket, with the rule that announces the bucket's
 *   objects to a queue, makes that queue the DLQ that stands for the archive;
 * - a queue a function's `DLQ_URL` names that nothing above found is the runtime's DLQ (`runtime`);
 * - a schedule's `Target.DeadLetterConfig` names the queue of the target calls it gave up on
 *   (`schedule`: `SqlEffectDatabase`'s expiry).
 * Pure: the caller resolves the template's values.
 */
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';
import { archiveLinks, type TryResolve } from './archive-topology';
import { runtimeDlqLinks } from './runtime-dlqs';
import { scheduleDlqLinks } from './schedule-dlqs';
import type { ArchiveRef, DlqSource } from './types';

/** A queue as the links need it: its ARN and URL, and its DLQ's ARN when it has a redrive policy. */
export interface LinkableQueue {
  readonly arn: string;
  readonly url: string;
  readonly deadLetterTargetArn?: string;
}

/** A DLQ, one source that feeds it, and the archive it stands for (if it is an index queue). */
export interface QueueLink<Q> {
  readonly queue: Q;
  readonly source: DlqSource;
  readonly archive?: ArchiveRef;
}

/** Every link, redrive targets first, then on-failure queues, archives' index queues, the runtime's DLQs and the schedules'. */
export function dlqLinks<Q extends LinkableQueue>(queues: readonly Q[], template: Template, resolve: TryResolve): QueueLink<Q>[] {
  const byArn = new Map(queues.map((queue) => [queue.arn, queue]));
  const links: QueueLink<Q>[] = [];
  for (const queue of queues) {
    const dlq = queue.deadLetterTargetArn === undefined ? undefined : byArn.get(queue.deadLetterTargetArn);
    if (dlq) links.push({ queue: dlq, source: { role: 'redrive', arn: queue.arn } });
  }
  for (const { destination, sourceArn } of onFailureDestinations(template, resolve)) {
    const dlq = byArn.get(destination);
    if (dlq) links.push({ queue: dlq, source: { role: 'on-failure', arn: sourceArn } });
  }
  for (const { bucket, streamArn, indexQueueArn } of archiveLinks(template, resolve)) {
    const index = byArn.get(indexQueueArn);
    if (index) links.push({ queue: index, source: { role: 'on-failure', arn: streamArn }, archive: { bucket } });
  }
  const linked = new Set(links.map((link) => link.queue.arn));
  for (const { queueUrl, sourceArn } of runtimeDlqLinks(template, resolve)) {
    const dlq = queues.find((queue) => queue.url === queueUrl);
    if (dlq && !linked.has(dlq.arn)) links.push({ queue: dlq, source: { role: 'runtime', arn: sourceArn } });
  }
  for (const { queueArn, scheduleArn } of scheduleDlqLinks(template, resolve)) {
    const dlq = byArn.get(queueArn);
    if (dlq) links.push({ queue: dlq, source: { role: 'schedule', arn: scheduleArn } });
  }
  return links;
}

/** Each mapping's on-failure destination ARN and source ARN; a mapping whose values do not resolve is left out. */
function onFailureDestinations(template: Template, resolve: TryResolve): { destination: string; sourceArn: string }[] {
  return resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING).flatMap(({ properties }) => {
    const config = properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined;
    const destination = resolve(config?.OnFailure?.Destination);
    const sourceArn = resolve(properties.EventSourceArn);
    return destination && sourceArn ? [{ destination, sourceArn }] : [];
  });
}
