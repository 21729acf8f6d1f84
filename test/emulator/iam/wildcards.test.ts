/** IAM's wildcard matching: actions case-insensitively, ARNs segment by segment, StringLike whole values. */
import { actionPattern, arnPattern, stringPattern } from '../../../emulator/iam/wildcard';

const TABLE = 'arn:aws:dynamodb:us-east-1:123456789012:table/Orders';

test.each([
  // [pattern, action, matches]
  ['dynamodb:*', 'dynamodb:PutItem', true],
  ['dynamodb:*', 'sqs:SendMessage', false],
  ['kms:GenerateDataKey*', 'kms:GenerateDataKey', true],
  ['kms:GenerateDataKey*', 'kms:GenerateDataKeyWithoutPlaintext', true],
  ['kms:GenerateDataKey*', 'kms:Decrypt', false],
  ['sqs:SendMessage', 'SQS:sendmessage', true], // action names are case-insensitive
  ['sqs:*Message', 'sqs:ReceiveMessage', true],
  ['sqs:*Message', 'sqs:SendMessageBatch', false],
  ['sqs:?etQueueUrl', 'sqs:GetQueueUrl', true],
  ['*', 'kinesis:GetRecords', true],
  ['dynamodb:Get*', 'dynamodb:GetItem', true],
  ['dynamodb:GetItem', 'dynamodb:GetItemX', false],
  ['s3:Get.bject', 's3:GetObject', false], // regular-expression characters are literal
])('action %s covers %s: %s', (pattern, action, matches) => {
  expect(actionPattern(pattern).test(action)).toBe(matches);
});

test.each([
  // [pattern, resource, matches]
  ['*', TABLE, true],
  [TABLE, TABLE, true],
  [TABLE, `${TABLE}/index/ByCustomer`, false],
  [`${TABLE}/index/*`, `${TABLE}/index/ByCustomer`, true],
  [`${TABLE}/index/*`, TABLE, false],
  ['arn:aws:dynamodb:*:*:table/Orders', TABLE, true],
  ['arn:aws:dynamodb:*:*:table/*', 'arn:aws:dynamodb:eu-west-1:123456789012:table/Counters', true],
  ['arn:aws:dynamodb:us-east-1:123456789012:table/Order?', TABLE, true],
  ['arn:aws:dynamodb:us-east-1:123456789012:table/Order?', `${TABLE}s`, false],
  ['arn:aws:dynamodb:us-east-1:123456789012:table/orders', TABLE, false], // resources are case-sensitive
  ['arn:aws:sqs:*', 'arn:aws:sqs:us-east-1:123456789012:queue', true], // a segment-ending * runs past colons
  ['arn:aws:sqs:us-*-1:123456789012:queue', 'arn:aws:sqs:us-east-1:123456789012:queue', true],
  ['arn:aws:sqs:us-*1:123456789012:queue', 'arn:aws:sqs:us-east:x1:123456789012:queue', false], // a mid-segment * stays in its segment
  ['arn:aws:sqs:us-east-?:123456789012:queue', 'arn:aws:sqs:us-east-1:123456789012:queue', true],
  ['arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/fn:*', 'arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/fn:log-stream:abc', true],
  ['arn:aws:sqs:us-east-1:123456789012:queue.fifo', 'arn:aws:sqs:us-east-1:123456789012:queueXfifo', false],
])('resource %s covers %s: %s', (pattern, resource, matches) => {
  expect(arnPattern(pattern).test(resource)).toBe(matches);
});

test.each([
  // [pattern, value, ignore case, matches]
  ['arn:aws:cloudwatch:*:*:alarm:*', 'arn:aws:cloudwatch:us-east-1:1:alarm:a:b', false, true],
  ['prod-*', 'prod-orders', false, true],
  ['prod-*', 'Prod-orders', false, false],
  ['prod-*', 'Prod-orders', true, true],
  ['a?c', 'abc', false, true],
  ['a?c', 'ac', false, false],
])('StringLike %s on %s (ignore case %s): %s', (pattern, value, ignoreCase, matches) => {
  expect(stringPattern(pattern, ignoreCase).test(value)).toBe(matches);
});
