/**
 * A call AWS refuses for lack of a permission becomes a PermissionDeniedError that names the
 * permission, whatever the service calls its refusal; any other error passes as it is.
 */
import { PermissionDeniedError } from '../../../operations/dlq';
import { arnScopeOf, bucketArn, functionArn, isAccessDenied, needing } from '../../../operations/dlq/permissions';
import type { StackTopology } from '../../../operations/dlq';
import { serviceError } from '../../helpers/sdk';

const SEND = { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:eu-west-1:123456789012:orders' };

test.each([
  ['AccessDenied', 403], // SQS, S3
  ['AccessDeniedException', 400], // DynamoDB, Kinesis, KMS; Lambda with 403
  ['AuthorizationError', 403], // SNS
  ['Forbidden', 403], // S3 HEAD, which has no body
  ['KmsAccessDenied', 400], // SQS refused by a queue's key
  ['KMSAccessDeniedException', 400], // Kinesis refused by a stream's key
])('%s is a refusal for lack of a permission, named as the permission the call needs', async (name, status) => {
  const refusal = serviceError(name, status, 'User: arn:aws:sts::123456789012:assumed-role/ops/me is not authorized to perform: sqs:sendmessage');
  expect(isAccessDenied(refusal)).toBe(true);
  const call = needing(SEND, () => Promise.reject(refusal));
  await expect(call).rejects.toBeInstanceOf(PermissionDeniedError);
  await expect(call).rejects.toMatchObject({ permission: SEND, cause: refusal, message: expect.stringContaining(`lacks sqs:SendMessage on ${SEND.resource} (${name}: User: `) });
});

test('any other error passes as it is, and a refusal already named keeps its name', async () => {
  const throttled = serviceError('ThrottlingException', 400);
  await expect(needing(SEND, () => Promise.reject(throttled))).rejects.toBe(throttled);
  const named = new PermissionDeniedError({ action: 'sqs:ReceiveMessage', resource: 'arn:aws:sqs:eu-west-1:123456789012:dlq' }, { cause: serviceError('AccessDenied', 403) });
  await expect(needing(SEND, () => Promise.reject(named))).rejects.toBe(named);
  await expect(needing(SEND, () => Promise.resolve(42))).resolves.toBe(42);
});

test('the ARNs of what the topology names by name are built in the stack\'s partition, region and account', () => {
  const topology = { region: 'cn-north-1', queues: [{ name: 'q', url: 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q', arn: 'arn:aws-cn:sqs:cn-north-1:123456789012:q' }], streams: [] } as unknown as StackTopology;
  const scope = arnScopeOf(topology);
  expect(functionArn(scope, 'notifier')).toBe('arn:aws-cn:lambda:cn-north-1:123456789012:function:notifier');
  expect(bucketArn(scope, 'archive')).toBe('arn:aws-cn:s3:::archive');
  expect(bucketArn(scope, 'archive', 'aws/lambda/x')).toBe('arn:aws-cn:s3:::archive/aws/lambda/x');
});
