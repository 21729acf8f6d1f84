/**
 * What is left of a stack after `cdk destroy`: for each resource the test can look up, whether
 * its service still knows it. A resource the template retains (`DeletionPolicy: Retain`) must
 * stay; every other one must be gone.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamSummaryCommand } from '@aws-sdk/client-kinesis';
import { GetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { ResourceType } from '../../aws/cloudformation/template';
import type { Deployment } from './deployment';
import { listFunctions, type MotoClients } from './readback';
import type { Target } from './commands';

export interface Leftover {
  readonly logicalId: string;
  readonly type: string;
  readonly retained: boolean;
  readonly exists: boolean;
}

type Lookup = (clients: MotoClients, physicalId: string) => Promise<unknown>;

const LOOKUPS: Readonly<Record<string, Lookup>> = {
  [ResourceType.QUEUE]: (clients, url) => clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })),
  [ResourceType.TABLE]: (clients, name) => clients.dynamodb.send(new DescribeTableCommand({ TableName: name })),
  [ResourceType.STREAM]: (clients, name) => clients.kinesis.send(new DescribeStreamSummaryCommand({ StreamName: name })),
  [ResourceType.TOPIC]: (clients, arn) => clients.sns.send(new GetTopicAttributesCommand({ TopicArn: arn })),
};

/** Every queue, table, stream, topic and function of the deployment, looked up again. */
export async function leftovers(target: Target, clients: MotoClients, deployment: Deployment): Promise<Leftover[]> {
  const functionNames = new Set((await listFunctions(target)).map((fn) => fn.FunctionName));
  const found: Leftover[] = [];
  for (const [logicalId, physicalId] of Object.entries(deployment.physicalIds)) {
    const resource = deployment.template.Resources[logicalId];
    const lookup = LOOKUPS[resource?.Type ?? ''];
    const exists = resource?.Type === ResourceType.FUNCTION ? functionNames.has(physicalId) : lookup ? await answers(() => lookup(clients, physicalId)) : undefined;
    if (resource && exists !== undefined) found.push({ logicalId, type: resource.Type, retained: (resource as { DeletionPolicy?: string }).DeletionPolicy === 'Retain', exists });
  }
  return found;
}

/** True when the service answers; false when it says the resource does not exist. */
async function answers(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (/NotFound|NonExistent|DoesNotExist/i.test(name)) return false;
    throw error;
  }
}
