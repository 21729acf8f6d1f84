/**
 * What a request rule needs to know beyond the request (a queue's size limit, a table's key), asked
 * of the engine itself the first time it is needed and kept: the gateway then knows the facts of
 * any queue or table, the template's or one a test or a user's AWS CLI created.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RequestFacts, RequestTarget } from '../contract';

/** Engine clients that bypass the gateway (administrator credentials). */
export interface FactClients {
  readonly sqs?: SQSClient;
  readonly dynamodb?: DynamoDBClient;
}

type Input = Readonly<Record<string, unknown>>;

export class EngineFacts {
  private readonly queueSizes = new Map<string, number | undefined>();
  /** Filled as tables are met; the conflict tracker holds this very object. */
  public readonly keySchemas: Record<string, readonly string[]> = {};

  public constructor(private readonly clients: FactClients) {}

  /** The facts the rules of this request read, looked up when not known yet. */
  public async factsFor(target: RequestTarget, input: Input): Promise<RequestFacts> {
    if (target.service === 'sqs') return { sqs: { maximumMessageSize: await this.queueSize(input.QueueUrl) } };
    if (target.service === 'dynamodb') {
      await Promise.all(tableNamesOf(input).map((table) => this.learnKeySchema(table)));
      return { dynamodb: { keySchemas: this.keySchemas } };
    }
    return {};
  }

  private async queueSize(queueUrl: unknown): Promise<number | undefined> {
    if (typeof queueUrl !== 'string' || !this.clients.sqs) return undefined;
    if (!this.queueSizes.has(queueUrl)) this.queueSizes.set(queueUrl, await this.readQueueSize(this.clients.sqs, queueUrl));
    return this.queueSizes.get(queueUrl);
  }

  /** Unknown (a queue that does not exist: the engine will say so) leaves the rule at SQS's default. */
  private async readQueueSize(sqs: SQSClient, queueUrl: string): Promise<number | undefined> {
    try {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['MaximumMessageSize'] }));
      const size = Number(Attributes?.MaximumMessageSize);
      return Number.isFinite(size) && size > 0 ? size : undefined;
    } catch {
      return undefined;
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
