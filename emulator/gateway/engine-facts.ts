/**
 * What a request rule needs to know beyond the request (a queue's size limit, a table's key), asked
 * of the engine itself the first time it is needed and kept: the gateway then knows the facts of
 * any queue or table, the template's or one a test or a user's AWS CLI created.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RequestFacts, RequestTarget, SqsFacts } from '../contract';
import { isFifoQueue } from '../../aws/sqs/fifo';

/** Engine clients that bypass the gateway (administrator credentials). */
export interface FactClients {
  readonly sqs?: SQSClient;
  readonly dynamodb?: DynamoDBClient;
}

type Input = Readonly<Record<string, unknown>>;

export class EngineFacts {
  private readonly queues = new Map<string, SqsFacts>();
  /** Filled as tables are met; the conflict tracker holds this very object. */
  public readonly keySchemas: Record<string, readonly string[]> = {};

  public constructor(private readonly clients: FactClients) {}

  /** The facts the rules of this request read, looked up when not known yet. */
  public async factsFor(target: RequestTarget, input: Input): Promise<RequestFacts> {
    if (target.service === 'sqs') return { sqs: await this.queueFacts(input.QueueUrl) };
    if (target.service === 'dynamodb') {
      await Promise.all(tableNamesOf(input).map((table) => this.learnKeySchema(table)));
      return { dynamodb: { keySchemas: this.keySchemas } };
    }
    return {};
  }

  private async queueFacts(queueUrl: unknown): Promise<SqsFacts> {
    if (typeof queueUrl !== 'string') return {};
    if (!this.queues.has(queueUrl)) this.queues.set(queueUrl, { fifo: isFifoQueue(queueUrl), ...(this.clients.sqs && (await this.readQueueFacts(this.clients.sqs, queueUrl))) });
    return this.queues.get(queueUrl) ?? {};
  }

  /** Unknown (a queue that does not exist: the engine will say so) leaves the rules at SQS's defaults. */
  private async readQueueFacts(sqs: SQSClient, queueUrl: string): Promise<SqsFacts> {
    try {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['MaximumMessageSize', 'ContentBasedDeduplication'] }));
      const size = Number(Attributes?.MaximumMessageSize);
      return { maximumMessageSize: Number.isFinite(size) && size > 0 ? size : undefined, contentBasedDeduplication: Attributes?.ContentBasedDeduplication === 'true' };
    } catch {
      return {};
    }
  }

  private async learnKeySchema(table: string): Promise<void> {
    if (this.keySchemas[table] !== undefined || !this.clients.dynamodb) return;
    try {
      const { Table } = await this.clients.dynamodb.send(new DescribeTableCommand({ TableName: table }));
      const names = (Table?.KeySchema ?? []).map((key) => key.AttributeName ?? '').filter(Boolean);
      if (names.length > 0) this.keySchemas[table] = names;
    } catch {
      // A table that does not exist: the engine answers the request with ResourceNotFoundException.
    }
  }
}

/** Every table a DynamoDB request names: `TableName`, the transactions' items, the batches' `RequestItems`. */
export function tableNamesOf(input: Input): string[] {
  const names = new Set<string>();
  if (typeof input.TableName === 'string') names.add(input.TableName);
  for (const item of Array.isArray(input.TransactItems) ? (input.TransactItems as Input[]) : []) {
    for (const action of Object.values(item)) {
      const table = (action as Input | undefined)?.TableName;
      if (typeof table === 'string') names.add(table);
    }
  }
  const requestItems = input.RequestItems;
  if (typeof requestItems === 'object' && requestItems !== null) for (const table of Object.keys(requestItems)) names.add(table);
  return [...names];
}
