/**
 * Where the AWS mode's clients send their requests: the SDK's rule for configured endpoints, an
 * SQS client that never swaps its endpoint for a queue URL's host, Kinesis over HTTP/1.1, and
 * the URL suffix of every partition. No request is made.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { awsClients, configuredEndpoint, configuredEndpoints, destroyDlqClients, InvalidOptionError, urlSuffixOf } from '../../../operations/dlq';

describe('configuredEndpoint', () => {
  test.each([
    [{ AWS_ENDPOINT_URL: 'http://localhost:5000' }, 'http://localhost:5000'],
    [{ AWS_ENDPOINT_URL: 'http://localhost:5000', AWS_ENDPOINT_URL_SQS: 'https://vpce-1.sqs.eu-west-1.vpce.amazonaws.com' }, 'https://vpce-1.sqs.eu-west-1.vpce.amazonaws.com'],
    [{ AWS_ENDPOINT_URL_KINESIS: 'http://localhost:4567' }, undefined],
    [{ AWS_ENDPOINT_URL: 'http://localhost:5000', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' }, undefined],
    [{}, undefined],
  ])('SQS with %j: %s', (env, expected) => {
    expect(configuredEndpoint('SQS', env)).toBe(expected);
  });

  test('each service has its own variable, DynamoDB Streams too', () => {
    const env = { AWS_ENDPOINT_URL: 'http://generic:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2', AWS_ENDPOINT_URL_DYNAMODB_STREAMS: 'http://streams:3', AWS_ENDPOINT_URL_CLOUDFORMATION: 'http://cfn:4', AWS_ENDPOINT_URL_LAMBDA: 'http://lambda:5', AWS_ENDPOINT_URL_RDS_DATA: 'http://rds-data:6' };
    expect(configuredEndpoints(env)).toEqual({ SQS: 'http://generic:1', KINESIS: 'http://generic:1', DYNAMODB: 'http://ddb:2', DYNAMODB_STREAMS: 'http://streams:3', S3: 'http://generic:1', LAMBDA: 'http://lambda:5', RDS_DATA: 'http://rds-data:6', CLOUDFORMATION: 'http://cfn:4' });
  });

  test('fails naming the variable when its value is not an http(s) URL', () => {
    expect(() => configuredEndpoint('KINESIS', { AWS_ENDPOINT_URL_KINESIS: 'localhost:4567' })).toThrow(InvalidOptionError);
    expect(() => configuredEndpoint('KINESIS', { AWS_ENDPOINT_URL_KINESIS: 'localhost:4567' })).toThrow(/AWS_ENDPOINT_URL_KINESIS must be an http\(s\) URL .*given "localhost:4567"/);
  });
});

describe('awsClients', () => {
  test('under an endpoint: every client goes there, SQS ignores queue URL hosts, Kinesis speaks HTTP/1.1', async () => {
    const clients = awsClients('eu-west-1', { AWS_ENDPOINT_URL: 'http://localhost:5000' });
    try {
      expect(clients.sqs.config.useQueueUrlAsEndpoint).toBe(false);
      for (const client of [clients.sqs, clients.kinesis, clients.dynamodb, clients.dynamodbStreams, clients.lambda]) expect((await client?.config.endpoint?.())?.hostname).toBe('localhost');
      expect(clients.kinesis.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
    } finally {
      destroyDlqClients(clients);
    }
  });

  test('on AWS: the SDK resolves each endpoint, and SQS still never sends to a queue URL\'s host', () => {
    const clients = awsClients('cn-north-1', {});
    try {
      expect(clients.sqs.config.endpoint).toBeUndefined();
      expect(clients.sqs.config.useQueueUrlAsEndpoint).toBe(false);
    } finally {
      destroyDlqClients(clients);
    }
  });
});

test.each([
  ['aws', 'amazonaws.com'],
  ['aws-us-gov', 'amazonaws.com'],
  ['aws-cn', 'amazonaws.com.cn'],
  ['aws-eusc', 'amazonaws.eu'],
  ['aws-iso', 'c2s.ic.gov'],
  ['aws-iso-b', 'sc2s.sgov.gov'],
  ['aws-iso-e', 'cloud.adc-e.uk'],
  ['aws-iso-f', 'csp.hci.ic.gov'],
])('the URL suffix of partition %s is %s', (partition, suffix) => {
  expect(urlSuffixOf(partition)).toBe(suffix);
});

test('a partition newer than the table takes its suffix from a queue URL of the stack', () => {
  expect(urlSuffixOf('aws-new', 'https://sqs.xx-new-1.example.cloud/123456789012/q')).toBe('example.cloud');
});
