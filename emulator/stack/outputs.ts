/** The stack's outputs and its dead-letter queues, resolved to the local resources. */
import { resolveString, tryResolveString } from '../../aws/cloudformation/intrinsics';
import { dlqLinks } from '../../operations/dlq/dlq-links';
import type { DlqRole } from '../../operations/dlq/types';
import type { LocalQueue, ProvisionedStack } from './provision';
import type { Template } from '../../aws/cloudformation/template';

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
  /** `redrive`: SQS moves messages here after maxReceiveCount; `on-failure`: a stream mapping's destination; `runtime`: only the consumer's runtime writes here; `schedule`: a schedule's failed target calls. */
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
  const links = dlqLinks([...stack.queues.values()], template, (value) => tryResolveString(value, stack.context));
  return links.map(({ queue, source, archive }) => ({ queue, role: source.role, sourceArn: source.arn, ...(archive && { archive }) }));
}
