/**
 * The AWS managed policies local mode knows, with their documented statements (AWS Managed Policy
 * Reference, docs.aws.amazon.com/aws-managed-policy/latest/reference/<name>.html: default
 * versions AWSLambdaBasicExecutionRole v1, AWSLambdaDynamoDBExecutionRole v1,
 * AWSLambdaKinesisExecutionRole v2; AWSLambdaSQSQueueExecutionRole as the Lambda Developer Guide
 * describes it). A role that uses another managed policy is an error, never a silent allow.
 */

const LOGS = ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'] as const;

function allowAll(actions: readonly string[]): unknown {
  return { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: [...actions], Resource: '*' }] };
}

/** Policy documents by path and name, as in `arn:aws:iam::aws:policy/<path and name>`. */
export const MANAGED_POLICIES: Readonly<Record<string, unknown>> = {
  'service-role/AWSLambdaBasicExecutionRole': allowAll(LOGS),
  'service-role/AWSLambdaSQSQueueExecutionRole': allowAll(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', ...LOGS]),
  'service-role/AWSLambdaKinesisExecutionRole': allowAll([
    'kinesis:DescribeStream',
    'kinesis:DescribeStreamSummary',
    'kinesis:GetRecords',
    'kinesis:GetShardIterator',
    'kinesis:ListShards',
    'kinesis:ListStreams',
    'kinesis:SubscribeToShard',
    ...LOGS,
  ]),
  'service-role/AWSLambdaDynamoDBExecutionRole': allowAll(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams', ...LOGS]),
};

const AWS_MANAGED_ARN = /^arn:[^:]+:iam::aws:policy\/(.+)$/;

/** The document of an AWS managed policy ARN, or `undefined` when the catalog does not hold it. */
export function managedPolicyDocument(policyArn: string): unknown {
  const name = AWS_MANAGED_ARN.exec(policyArn)?.[1];
  return name === undefined ? undefined : MANAGED_POLICIES[name];
}
