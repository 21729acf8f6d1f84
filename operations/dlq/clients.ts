/**
 * The SDK clients of the DLQ operations, for AWS or for any endpoint: the same factory serves
 * the AWS mode (endpoints from the environment, see endpoints.ts) and `--local` (the endpoints
 * `eo local up` wrote), so both send the same requests the same way. Nothing of the emulator is
 * imported here: an operator's install has the SDK, not the engines.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { configuredEndpoint, configuredEndpoints, DlqService, type Env, type ServiceEndpoints } from './endpoints';
import type { DlqClients } from './types';

/** Static credentials, for engines that check that some are present (local mode). */
export interface StaticCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface DlqClientOptions {
  readonly region: string;
  /** @default - the endpoints the environment configures (`AWS_ENDPOINT_URL_<SERVICE>`, `AWS_ENDPOINT_URL`), else AWS */
  readonly endpoints?: ServiceEndpoints;
  /** @default - the SDK's default chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, SSO, instance roles) */
  readonly credentials?: StaticCredentials;
}

/**
 * One client per service the operations call.
 *
 * @example dlqClients({ region: 'eu-west-1' }) // AWS, or what AWS_ENDPOINT_URL says
 */
export function dlqClients(options: DlqClientOptions): DlqClients {
  const endpoints = options.endpoints ?? configuredEndpoints();
  const base = { region: options.region, ...(options.credentials && { credentials: { ...options.credentials } }) };
  return {
    sqs: sqsClient(base, endpoints.SQS),
    kinesis: kinesisClient(base, endpoints.KINESIS),
    dynamodb: new DynamoDBClient({ ...base, ...at(endpoints.DYNAMODB) }),
    dynamodbStreams: new DynamoDBStreamsClient({ ...base, ...at(endpoints.DYNAMODB_STREAMS) }),
    s3: s3Client(base, endpoints.S3),
    lambda: new LambdaClient({ ...base, ...at(endpoints.LAMBDA) }),
    rdsData: rdsDataClient(base, endpoints.RDS_DATA),
    region: options.region,
  };
}

type BaseConfig = { readonly region: string; readonly credentials?: StaticCredentials };

/**
 * By default the SQS client sends each request to its queue URL's host rather than to its
 * endpoint, and queue URLs name AWS's regional host (CloudFormation's and moto's do, even off
 * AWS): an emulator, a VPC endpoint without private DNS, a FIPS or dual-stack endpoint would be
 * bypassed. Every queue these operations touch is in the stack's region, so the client's own
 * endpoint, however it is configured (`AWS_ENDPOINT_URL*`, a profile's `services` section,
 * `AWS_USE_FIPS_ENDPOINT`), is always the right one: the queue URL's host is never used.
 */
function sqsClient(base: BaseConfig, endpoint: string | undefined): SQSClient {
  return new SQSClient({ ...base, ...at(endpoint), useQueueUrlAsEndpoint: false });
}

/**
 * HTTP/1.1, always: emulators and proxies do not speak HTTP/2, the Kinesis client's default,
 * and the few reads and puts of a redrive gain nothing from it. (An endpoint from a profile's
 * `services` section is one this module cannot see, so the choice cannot wait for an override.)
 */
function kinesisClient(base: BaseConfig, endpoint: string | undefined): KinesisClient {
  return new KinesisClient({ ...base, ...at(endpoint), requestHandler: new NodeHttpHandler() });
}

/**
 * Path-style addressing when an endpoint is configured: an emulator (fauxqs, moto) or a proxy
 * serves every bucket at one host, where a virtual-hosted name (`<bucket>.localhost`) would not
 * resolve. AWS itself gets the SDK's default, virtual-hosted style.
 */
function s3Client(base: BaseConfig, endpoint: string | undefined): S3Client {
  return new S3Client({ ...base, ...(endpoint !== undefined && { endpoint, forcePathStyle: true }) });
}

/**
 * One attempt per call, as `DataApiSession` requires: the runtime's read of the dedup rows retries
 * whole transactions itself (a resuming cluster included), and a statement sent twice by the SDK
 * would run twice in one of them.
 */
function rdsDataClient(base: BaseConfig, endpoint: string | undefined): RDSDataClient {
  return new RDSDataClient({ ...base, ...at(endpoint), maxAttempts: 1 });
}

function at(endpoint: string | undefined): { endpoint?: string } {
  return endpoint === undefined ? {} : { endpoint };
}

/** The client that reads the stack; `region` undefined means the environment's. */
export function cloudFormationClient(region: string | undefined, env: Env = process.env): CloudFormationClient {
  return new CloudFormationClient({ ...(region && { region }), ...at(configuredEndpoint(DlqService.CLOUDFORMATION, env)) });
}

/** Closes every client's sockets. */
export function destroyDlqClients(clients: DlqClients): void {
  for (const client of [clients.sqs, clients.kinesis, clients.dynamodb, clients.dynamodbStreams, clients.s3, clients.lambda, clients.rdsData]) client?.destroy();
}
