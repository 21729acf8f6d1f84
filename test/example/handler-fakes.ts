/**
 * Fake AWS clients for the example handlers' unit tests: tiny objects whose `send` records
 * commands and answers as scripted, and readers of what the handlers sent through them (DLQ
 * wrappers, transactions, their increments and dedup puts).
 */
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { FailureEnvelope } from '../../aws/dlq-format';
import type { AwsClients } from '../../lambdas/runtime/one-call/clients';
import { asClient, FakeClient, noSleep } from '../helpers/fakes';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

export const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/dlq';
export const RETRY = { sleep: noSleep, maxAttempts: 2 };

export interface Fakes {
  readonly dynamodb: FakeClient;
  readonly sqs: FakeClient;
  readonly sns: FakeClient;
  readonly clients: AwsClients;
}

export function fakeClients(dynamodb = new FakeClient()): Fakes {
  const sqs = new FakeClient((command) => (command.name === 'SendMessageCommand' ? { MessageId: 'dlq-1' } : { Successful: [], Failed: [] }));
  const sns = new FakeClient(() => ({ MessageId: 'sns-1' }));
  const clients: AwsClients = {
    dynamodb: asClient<DynamoDBClient>(dynamodb),
    sqs: asClient<SQSClient>(sqs),
    sns: asClient<SNSClient>(sns),
    kinesis: asClient<KinesisClient>(new FakeClient(() => {
      throw new Error('no consumer here writes to Kinesis');
    })),
  };
  return { dynamodb, sqs, sns, clients };
}

export function dlqWrappers(sqs: FakeClient): FailureEnvelope[] {
  return sqs.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope);
}

export function transactions(dynamodb: FakeClient): TransactWriteItem[][] {
  return dynamodb.commandsNamed('TransactWriteItemsCommand').map((command) => command.input.TransactItems as TransactWriteItem[]);
}

/** `pk -> amount` of every ADD in the actions. */
export function increments(actions: readonly TransactWriteItem[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const action of actions) {
    if (!action.Update?.UpdateExpression?.startsWith('ADD')) continue;
    totals[String(unmarshall(action.Update.Key ?? {}).pk)] = Number(action.Update.ExpressionAttributeValues?.[':v0']?.N);
  }
  return totals;
}

export function dedupIds(actions: readonly TransactWriteItem[]): string[] {
  return actions.filter((action) => action.Put).map((action) => String(action.Put?.Item?.id?.S));
}
