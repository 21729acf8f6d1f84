/**
 * Kinesis and DynamoDB Streams operations and the actions they need, on the stream's ARN (Service
 * Authorization Reference for Kinesis Data Streams and for DynamoDB: resource type `stream`;
 * `dynamodb:ListStreams` takes no resource, so `*`). `GetRecords` names only a shard iterator
 * and a `ListShards` continuation only a token: their stream comes from
 * `PermissionLookups.streamArnOfToken`, else the request is refused.
 */
import { kinesisStreamArn } from './arns';
import { UnknownResourceError, UnsupportedOperationError } from './errors';
import { requiredString, type Operation, type PermissionLookups, type RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

const KINESIS_OPERATIONS = ['PutRecord', 'PutRecords', 'GetRecords', 'GetShardIterator', 'DescribeStream', 'DescribeStreamSummary', 'ListShards'];
const DYNAMODB_STREAMS_OPERATIONS = ['DescribeStream', 'GetShardIterator', 'GetRecords'];

/** The permissions of a Kinesis request. */
export function kinesisPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  if (!KINESIS_OPERATIONS.includes(name)) throw new UnsupportedOperationError(AwsService.KINESIS, name);
  return [{ action: `kinesis:${name}`, resource: kinesisResource({ service: AwsService.KINESIS, name }, input, lookups) }];
}

function kinesisResource(operation: Operation, input: RequestInput, lookups: PermissionLookups): string {
  if (typeof input.StreamARN === 'string') return input.StreamARN;
  if (typeof input.StreamName === 'string') return lookups.streamArn?.(input.StreamName) ?? kinesisStreamArn(lookups, input.StreamName);
  const token = input.ShardIterator ?? input.NextToken;
  if (typeof token === 'string') return streamOfToken(operation, token, lookups);
  throw new UnknownResourceError(operation.service, operation.name, 'the request names no stream (StreamName, StreamARN, ShardIterator or NextToken)');
}

/** The permissions of a DynamoDB Streams request (its actions have the `dynamodb:` prefix). */
export function dynamodbStreamsPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  const operation: Operation = { service: AwsService.DYNAMODB_STREAMS, name };
  if (name === 'ListStreams') return [{ action: 'dynamodb:ListStreams', resource: '*' }];
  if (!DYNAMODB_STREAMS_OPERATIONS.includes(name)) throw new UnsupportedOperationError(operation.service, name);
  const resource = name === 'GetRecords' ? streamOfToken(operation, requiredString(input, 'ShardIterator', operation), lookups) : requiredString(input, 'StreamArn', operation);
  return [{ action: `dynamodb:${name}`, resource }];
}

function streamOfToken(operation: Operation, token: string, lookups: PermissionLookups): string {
  const arn = lookups.streamArnOfToken?.(token);
  if (arn === undefined) throw new UnknownResourceError(operation.service, operation.name, 'the shard iterator (or token) belongs to no stream the contract layer knows');
  return arn;
}
