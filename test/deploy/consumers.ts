/**
 * The stack's consumers as deployed: a function (found by its `CONSUMER_NAME`), the mapping that
 * feeds it, its source, and the DLQ the template gives it (the source queue's redrive target, or
 * the stream mapping's on-failure destination).
 */
import { resourcesOfType, ResourceType } from '../../aws/cloudformation/template';
import type { Deployment } from './deployment';
import type { DeployedFunction, DeployedMapping } from './readback';

export interface DeployedQueue {
  readonly logicalId: string;
  readonly url: string;
  readonly arn: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface DeployedConsumer {
  readonly name: string;
  readonly function: DeployedFunction;
  readonly mapping: DeployedMapping;
  /** The queue, Kinesis stream or table stream ARN the mapping reads. */
  readonly sourceArn: string;
  readonly dlq: DeployedQueue;
}

/** @throws Error naming what is missing: the function, its mapping, or its DLQ */
export function consumerOf(deployment: Deployment, name: string): DeployedConsumer {
  const logicalId = functionIdOf(deployment, name);
  const fn = deployment.functions.get(logicalId);
  const mapping = deployment.mappings.find((candidate) => candidate.FunctionArn === fn?.FunctionArn);
  if (!fn || !mapping) throw new Error(`consumer ${name} (${logicalId}): ${fn ? 'no event source mapping' : 'no function'} on moto`);
  const dlqArn = dlqArnOf(deployment, mapping);
  const dlq = dlqArn === undefined ? undefined : queueByArn(deployment, dlqArn);
  if (!dlq) throw new Error(`consumer ${name}: no deployed DLQ (${dlqArn ?? 'neither a redrive policy nor an on-failure destination'})`);
  return { name, function: fn, mapping, sourceArn: mapping.EventSourceArn, dlq };
}

function functionIdOf(deployment: Deployment, name: string): string {
  const found = resourcesOfType(deployment.template, ResourceType.FUNCTION).find((fn) => (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.CONSUMER_NAME === name);
  if (!found) throw new Error(`no function of the template has CONSUMER_NAME ${name}`);
  return found.logicalId;
}

function dlqArnOf(deployment: Deployment, mapping: DeployedMapping): string | undefined {
  const onFailure = (mapping.DestinationConfig as { OnFailure?: { Destination?: string } } | undefined)?.OnFailure?.Destination;
  if (onFailure) return onFailure;
  const policy = queueByArn(deployment, mapping.EventSourceArn)?.attributes.RedrivePolicy;
  return policy === undefined ? undefined : (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn;
}

export function queueByArn(deployment: Deployment, arn: string): DeployedQueue | undefined {
  for (const [logicalId, attributes] of deployment.queues) {
    if (attributes.QueueArn === arn) return { logicalId, url: deployment.physicalIds[logicalId] ?? '', arn, attributes };
  }
  return undefined;
}

/** The queues that are some queue's redrive target or some mapping's on-failure destination. */
export function deadLetterQueues(deployment: Deployment): DeployedQueue[] {
  const arns = new Set<string>();
  for (const attributes of deployment.queues.values()) {
    if (attributes.RedrivePolicy) arns.add((JSON.parse(attributes.RedrivePolicy) as { deadLetterTargetArn: string }).deadLetterTargetArn);
  }
  for (const mapping of deployment.mappings) arns.add(dlqArnOf(deployment, mapping) ?? '');
  return [...arns].flatMap((arn) => queueByArn(deployment, arn) ?? []);
}

/** True for a Kinesis stream or a DynamoDB table stream. */
export function isStreamArn(arn: string): boolean {
  return /^arn:[^:]+:kinesis:/.test(arn) || /^arn:[^:]+:dynamodb:.*\/stream\//.test(arn);
}
