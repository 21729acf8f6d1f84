/** The stack's outputs and its dead-letter queues, resolved to the local resources. */
import { resolveString, resolveValue, tryResolveString } from '../../aws/cloudformation/intrinsics';
import { archiveLinks } from '../../operations/dlq/archive-topology';
import { runtimeDlqLinks } from '../../operations/dlq/runtime-dlqs';
import type { DlqRole } from '../../operations/dlq/types';
import type { LocalQueue, ProvisionedStack } from './provision';
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';

/** Every output of the template, as its local value (a queue URL, a table name, a topic ARN). */
export function resolveOutputs(template: Template, stack: ProvisionedStack): Record<string, string> {
  return Object.fromEntries(Object.entries(template.Outputs ?? {}).map(([name, output]) => [name, resolveString(output.Value, stack.context)]));
}

/** Reads one output. @throws naming the outputs there are */
export function output(outputs: Record<string, string>, name: string): string {
  const value = outputs[name];
  if (value === undefined) throw new Error(`the stack has no output ${name} (outputs: ${Object.keys(outputs).join(', ')})`);
  return value;
}

/** A dead-letter queue and what feeds it. */
export interface DeadLetterQueue {
  readonly queue: LocalQueue;
  /** `redrive`: SQS moves messages here after maxReceiveCount; `on-failure`: a stream mapping's destination; `runtime`: only the consumer's runtime writes here. */
  readonly role: DlqRole;
  /** The source queue's or stream's ARN. */
  readonly sourceArn: string;
  /** Set when the queue is a failure archive's index queue: the failures are the bucket's objects. */
  readonly archive?: { readonly bucket: string };
}

/**
 * Every queue that is a redrive target of another queue or an on-failure destination of a
 * mapping, every failure archive's index queue (the bucket is the mapping's destination), and any
 * other queue a consumer's runtime sends its failures to.
 */
export function deadLetterQueues(template: Template, stack: ProvisionedStack): DeadLetterQueue[] {
  const byArn = new Map([...stack.queues.values()].map((queue) => [queue.arn, queue]));
  const found: DeadLetterQueue[] = [];
  for (const queue of stack.queues.values()) {
    const dlq = queue.deadLetterTargetArn ? byArn.get(queue.deadLetterTargetArn) : undefined;
    if (dlq) found.push({ queue: dlq, role: 'redrive', sourceArn: queue.arn });
  }
  for (const mapping of resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING)) {
    const destination = (mapping.properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
    const dlq = destination === undefined ? undefined : byArn.get(resolveString(destination, stack.context));
    if (dlq) found.push({ queue: dlq, role: 'on-failure', sourceArn: String(resolveValue(mapping.properties.EventSourceArn, stack.context)) });
  }
  const resolve = (value: unknown) => tryResolveString(value, stack.context);
  for (const link of archiveLinks(template, resolve)) {
    const index = byArn.get(link.indexQueueArn);
    if (index) found.push({ queue: index, role: 'on-failure', sourceArn: link.streamArn, archive: { bucket: link.bucket } });
  }
  const linked = new Set(found.map((dlq) => dlq.queue.arn));
  for (const link of runtimeDlqLinks(template, resolve)) {
    const dlq = [...stack.queues.values()].find((queue) => queue.url === link.queueUrl);
    if (dlq && !linked.has(dlq.arn)) found.push({ queue: dlq, role: 'runtime', sourceArn: link.sourceArn });
  }
  return found;
}
