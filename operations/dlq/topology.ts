/** Finding a DLQ of the stack by what an operator types. */
import { UnknownQueueError } from './errors';
import type { QueueLink } from './dlq-links';
import type { DlqInfo, QueueRef, StackTopology } from './types';

/**
 * The DLQ `query` names: its URL, ARN or name, the output that holds its URL
 * (`PageViewCounterDlqUrl`), or a part of its name that only it contains (case-insensitive).
 *
 * @throws UnknownQueueError listing the DLQs there are
 */
export function findDlq(topology: StackTopology, query: string): DlqInfo {
  const dlqs = topology.deadLetterQueues;
  const byOutput = topology.outputs[query];
  const exact = dlqs.find((dlq) => [dlq.url, dlq.arn, dlq.name, byOutput].includes(query) || dlq.url === byOutput);
  if (exact) return exact;
  const partial = dlqs.filter((dlq) => dlq.name.toLowerCase().includes(query.toLowerCase()));
  if (partial.length === 1 && partial[0]) return partial[0];
  throw new UnknownQueueError(query, dlqs.map((dlq) => dlq.name));
}

/** One entry per queue, with every source that feeds it. */
export function groupDlqs(links: readonly QueueLink<QueueRef>[]): DlqInfo[] {
  const byArn = new Map<string, DlqInfo>();
  for (const { queue, source, archive } of links) {
    const known = byArn.get(queue.arn);
    const archived = archive ?? known?.archive;
    byArn.set(queue.arn, { name: queue.name, url: queue.url, arn: queue.arn, sources: [...(known?.sources ?? []), source], ...(archived && { archive: archived }) });
  }
  return [...byArn.values()];
}
