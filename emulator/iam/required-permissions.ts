/** Which IAM actions, on which resources, AWS authorizes for a request. */
import { dynamodbPermissions } from './dynamodb-permissions';
import { lambdaPermissions } from './lambda-permissions';
import { rdsDataPermissions } from './rds-data-permissions';
import type { PermissionLookups, RequestInput } from './request-input';
import { s3Permissions } from './s3-permissions';
import { snsPermissions } from './sns-permissions';
import { sqsPermissions } from './sqs-permissions';
import { dynamodbStreamsPermissions, kinesisPermissions } from './stream-permissions';
import { AwsService, type Permission } from './types';
import { UnsupportedOperationError } from './errors';

type PermissionsOf = (operation: string, input: RequestInput, lookups: PermissionLookups) => Permission[];

const BY_SERVICE: Readonly<Partial<Record<AwsService, PermissionsOf>>> = {
  [AwsService.SQS]: sqsPermissions,
  [AwsService.DYNAMODB]: dynamodbPermissions,
  [AwsService.DYNAMODB_STREAMS]: dynamodbStreamsPermissions,
  [AwsService.KINESIS]: kinesisPermissions,
  [AwsService.SNS]: snsPermissions,
  [AwsService.LAMBDA]: lambdaPermissions,
  [AwsService.S3]: s3Permissions,
  [AwsService.RDS_DATA]: rdsDataPermissions,
};

/**
 * The permissions a request needs, in the order AWS checks them.
 * @param operation the API operation, as in `X-Amz-Target` (`TransactWriteItems`) or SNS's `Action`
 * @param input the request's input with the SDK's member names (the JSON body; SNS's form fields;
 * for S3, the gateway's reading of the REST request, `S3RequestInput`)
 * @throws UnsupportedOperationError for an operation it does not map
 * @throws UnknownResourceError when the request does not say what it acts on
 * @example
 * requiredPermissions('sqs', 'SendMessageBatch', { QueueUrl, Entries }, { region, accountId })
 * // [{ action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:dlq' }]
 */
export function requiredPermissions(service: AwsService, operation: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  const permissionsOf = BY_SERVICE[service];
  if (!permissionsOf) throw new UnsupportedOperationError(service, operation);
  return permissionsOf(operation, input, lookups);
}
