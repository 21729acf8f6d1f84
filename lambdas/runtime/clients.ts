import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** The AWS clients the runtime uses; tests and local mode pass their own. */
export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  readonly kinesis: KinesisClient;
}

type Env = Readonly<Record<string, string | undefined>>;

/** True when `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL` points the SDK at another endpoint (local mode). */
export function hasEndpointOverride(service: 'SQS' | 'KINESIS', env: Env = process.env): boolean {
  return Boolean(env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL);
}

/**
 * Clients configured for where they run. On AWS they are the SDK defaults. Under an endpoint
 * override: SQS sends to the configured endpoint rather than the queue URL's host (local
 * emulators print host names that may not resolve), and Kinesis speaks HTTP/1.1 (emulators do
 * not speak HTTP/2, the Kinesis client's default).
 */
export function createClients(env: Env = process.env): AwsClients {
  return {
    dynamodb: new DynamoDBClient({}),
    sqs: new SQSClient(hasEndpointOverride('SQS', env) ? { useQueueUrlAsEndpoint: false } : {}),
    sns: new SNSClient({}),
    kinesis: new KinesisClient(hasEndpointOverride('KINESIS', env) ? { requestHandler: new NodeHttpHandler() } : {}),
  };
}

let defaultClients: AwsClients | undefined;

/** One set of clients per Lambda container, created on first use so that their connections are reused. */
export function sharedClients(): AwsClients {
  defaultClients ??= createClients();
  return defaultClients;
}
