/**
 * SQS operations and the actions they need (SQS Developer Guide, "Amazon SQS API permissions:
 * Actions and resource reference"): a batch operation is authorized as its single-message action
 * ("You cannot set permissions explicitly for SendMessageBatch, DeleteMessageBatch, or
 * ChangeMessageVisibilityBatch"), on the queue's ARN.
 */
import { queueArn, queueArnFromUrl } from './arns';
import { UnknownResourceError, UnsupportedOperationError } from './errors';
import { requiredString, type Operation, type PermissionLookups, type RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

const SQS_ACTIONS: Readonly<Record<string, string>> = {
  SendMessage: 'sqs:SendMessage',
  SendMessageBatch: 'sqs:SendMessage',
  ReceiveMessage: 'sqs:ReceiveMessage',
  DeleteMessage: 'sqs:DeleteMessage',
  DeleteMessageBatch: 'sqs:DeleteMessage',
  ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
  GetQueueAttributes: 'sqs:GetQueueAttributes',
  GetQueueUrl: 'sqs:GetQueueUrl',
  PurgeQueue: 'sqs:PurgeQueue',
};

/** The permissions of an SQS request. */
export function sqsPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  const action = SQS_ACTIONS[name];
  if (action === undefined) throw new UnsupportedOperationError(AwsService.SQS, name);
  const operation: Operation = { service: AwsService.SQS, name };
  return [{ action, resource: name === 'GetQueueUrl' ? namedQueueArn(input, lookups, operation) : urlQueueArn(input, lookups, operation) }];
}

function urlQueueArn(input: RequestInput, lookups: PermissionLookups, operation: Operation): string {
  const url = requiredString(input, 'QueueUrl', operation);
  const arn = lookups.queueArn?.(url) ?? queueArnFromUrl(lookups, url);
  if (arn === undefined) throw new UnknownResourceError(operation.service, operation.name, `${url} is not a queue URL`);
  return arn;
}

function namedQueueArn(input: RequestInput, lookups: PermissionLookups, operation: Operation): string {
  const owner = input.QueueOwnerAWSAccountId;
  return queueArn(lookups, requiredString(input, 'QueueName', operation), typeof owner === 'string' ? owner : lookups.accountId);
}
