/**
 * `bare`: the cold-start baseline, not a strategy. A handler that creates the AWS clients the
 * runtime's `sharedClients()` creates, with the same settings, and does nothing else: what a
 * consumer costs before any code of ours. It imports nothing of the runtime on purpose, so that
 * its bundle holds the SDK and no more; `test/tools/bench/bare-handler.test.ts` checks that its settings
 * are still the runtime's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';

/** The runtime's `SDK_CLIENT_DEFAULTS`, written out rather than imported. */
export const BARE_CLIENT_SETTINGS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 3 } as const;

/** The four clients, configured as the runtime's `createClients` configures them for `env`. */
export function createBareClients(env: NodeJS.ProcessEnv = process.env): { dynamodb: DynamoDBClient; sqs: SQSClient; sns: SNSClient; kinesis: KinesisClient } {
  const { connectionTimeoutMs, requestTimeoutMs, maxAttempts } = BARE_CLIENT_SETTINGS;
  const http1: NodeHttpHandlerOptions = { connectionTimeout: connectionTimeoutMs, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true };
  const overridden = (service: string): boolean => Boolean(env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL);
  return {
    dynamodb: new DynamoDBClient({ maxAttempts, requestHandler: http1 }),
    sqs: new SQSClient({ maxAttempts, requestHandler: http1, ...(overridden('SQS') ? { useQueueUrlAsEndpoint: false } : {}) }),
    sns: new SNSClient({ maxAttempts, requestHandler: http1 }),
    kinesis: new KinesisClient({ maxAttempts, requestHandler: overridden('KINESIS') ? new NodeHttpHandler(http1) : { requestTimeout: requestTimeoutMs, disableConcurrentStreams: true } }),
  };
}

let clients: ReturnType<typeof createBareClients> | undefined;

/** Creates the clients on first use, as the consumers do, and reports every record processed. */
export const handler = async (): Promise<{ batchItemFailures: [] }> => {
  clients ??= createBareClients();
  return { batchItemFailures: [] };
};
