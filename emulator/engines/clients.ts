import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './account';
import type { EngineEndpoints, LocalEndpoints } from './types';

/** What a local client signs with: the local account's administrator by default, or a function's own. */
export interface ClientCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

function common(credentials: ClientCredentials = LOCAL_CREDENTIALS) {
  return { region: LOCAL_REGION, credentials: { ...credentials } };
}

/** A DynamoDB client for DynamoDB Local at `endpoint`. */
export function dynamoDbClient(endpoint: string, credentials?: ClientCredentials): DynamoDBClient {
  return new DynamoDBClient({ ...common(credentials), endpoint });
}

/**
 * An SQS client for fauxqs at `endpoint`. fauxqs's queue URLs name `sqs.<region>.localhost`,
 * which may not resolve, and by default the client sends to the queue URL's host: so send to
 * the endpoint instead (fauxqs routes on the path).
 */
export function sqsClient(endpoint: string, credentials?: ClientCredentials): SQSClient {
  return new SQSClient({ ...common(credentials), endpoint, useQueueUrlAsEndpoint: false });
}

/** An SNS client for fauxqs at `endpoint` (the same endpoint as SQS). */
export function snsClient(endpoint: string, credentials?: ClientCredentials): SNSClient {
  return new SNSClient({ ...common(credentials), endpoint });
}

/** An S3 client for fauxqs at `endpoint` (the same endpoint as SQS), path-style: fauxqs serves every bucket at one host. */
export function s3Client(endpoint: string, credentials?: ClientCredentials): S3Client {
  return new S3Client({ ...common(credentials), endpoint, forcePathStyle: true });
}

/** A Kinesis client for kinesalite at `endpoint`, over HTTP/1.1: kinesalite has no HTTP/2. */
export function kinesisClient(endpoint: string, credentials?: ClientCredentials): KinesisClient {
  return new KinesisClient({ ...common(credentials), endpoint, requestHandler: new NodeHttpHandler() });
}

/** A Lambda client for the local stack's Invoke API at `endpoint`. */
export function lambdaClient(endpoint: string, credentials?: ClientCredentials): LambdaClient {
  return new LambdaClient({ ...common(credentials), endpoint });
}

/**
 * An RDS Data API client for the local Data API gateway at `endpoint`, of one attempt: the SDK's
 * retry of a statement whose answer was lost could run it twice.
 */
export function dataApiClient(endpoint: string, credentials?: ClientCredentials): RDSDataClient {
  return new RDSDataClient({ ...common(credentials), endpoint, maxAttempts: 1 });
}

/** One client per local service. */
export interface LocalClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  readonly kinesis: KinesisClient;
  readonly s3: S3Client;
}

/**
 * Clients for all local engines. For a subset, use the single-service factories.
 *
 * @example
 * const engines = await startEngines();
 * const { dynamodb, sqs } = localClients(requireEndpoints(engines.endpoints));
 */
export function localClients(endpoints: Required<EngineEndpoints>, credentials?: ClientCredentials): LocalClients {
  return {
    dynamodb: dynamoDbClient(endpoints.dynamodb, credentials),
    sqs: sqsClient(endpoints.sqs, credentials),
    sns: snsClient(endpoints.sqs, credentials),
    kinesis: kinesisClient(endpoints.kinesis, credentials),
    s3: s3Client(endpoints.sqs, credentials),
  };
}

/** Narrows `endpoints` to all three, or throws naming the ones missing. */
export function requireEndpoints(endpoints: EngineEndpoints): Required<EngineEndpoints> {
  const { dynamodb, sqs, kinesis } = endpoints;
  if (dynamodb !== undefined && sqs !== undefined && kinesis !== undefined) return { dynamodb, sqs, kinesis };
  const missing = (['dynamodb', 'sqs', 'kinesis'] as const).filter((name) => endpoints[name] === undefined);
  throw new Error(`No endpoint for ${missing.join(', ')}: start those engines first`);
}

/**
 * Environment variables that point AWS SDK v3 clients, built without explicit config, at the
 * local engines and the Lambda API (only those given). Two things the environment cannot say: an
 * SQS client must still set `useQueueUrlAsEndpoint: false`, and a Kinesis client needs an HTTP/1.1
 * `NodeHttpHandler`. S3 is fauxqs's too; an SDK client must set `forcePathStyle` (the AWS CLI goes
 * path-style by itself for an IP endpoint).
 */
export function endpointEnv(endpoints: LocalEndpoints): Record<string, string> {
  return {
    ...(endpoints.dynamodb && { AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb }),
    ...(endpoints.sqs && { AWS_ENDPOINT_URL_SQS: endpoints.sqs, AWS_ENDPOINT_URL_SNS: endpoints.sqs, AWS_ENDPOINT_URL_S3: endpoints.sqs }),
    ...(endpoints.kinesis && { AWS_ENDPOINT_URL_KINESIS: endpoints.kinesis }),
    ...(endpoints.lambda && { AWS_ENDPOINT_URL_LAMBDA: endpoints.lambda }),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  };
}

/** Closes the clients' sockets, so idle keep-alive connections do not hold a process open. */
export function destroyClients(clients: LocalClients): void {
  for (const client of Object.values(clients)) client.destroy();
}
