/** The stack's outputs and its dead-letter queues, resolved to the local resources. */
import { resolveString, resolveValue } from '../../aws/cloudformation/intrinsics';
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
  /** `redrive`: SQS moves messages here after maxReceiveCount; `on-failure`: a stream mapping's destination. */
  readonly role: 'redrive' | 'on-failure';
  /** The source queue's or stream's ARN. */
  readonly sourceArn: string;
}

/** Every queue that is a redrive target of another queue or an on-failure destination of a mapping. */
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
  return found;
}
