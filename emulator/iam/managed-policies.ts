/**
 * The AWS managed policies local mode knows, with their documented statements (AWS Managed Policy
 * Reference, docs.aws.amazon.com/aws-managed-policy/latest/reference/<name>.html: default
 * versions AWSLambdaBasicExecutionRole v1, AWSLambdaDynamoDBExecutionRole v1,
 * AWSLambdaKinesisExecutionRole v2; AWSLambdaSQSQueueExecutionRole as the Lambda Developer Guide
 * describes it; AWSLambdaManagedEC2ResourceOperator v1, as the Lambda Developer Guide's "Lambda
 * operator role for Lambda Managed Instances" gives it). A role that uses another managed policy is
 * an error, never a silent allow.
 */

const LOGS = ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'] as const;

function allowAll(actions: readonly string[]): unknown {
  return { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: [...actions], Resource: '*' }] };
}

/**
 * What Lambda may do with a capacity provider's operator role: launch and tag its instances in the
 * provider's subnets and security groups, from Amazon's images only. Nothing local assumes it (local
 * mode runs no EC2): it is here so that a stack on Managed Instances loads, its role policies read.
 */
const MANAGED_EC2_RESOURCE_OPERATOR = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Action: ['ec2:RunInstances', 'ec2:CreateTags', 'ec2:AttachNetworkInterface'],
      Resource: ['arn:aws:ec2:*:*:instance/*', 'arn:aws:ec2:*:*:network-interface/*', 'arn:aws:ec2:*:*:volume/*'],
      Condition: { StringEquals: { 'ec2:ManagedResourceOperator': 'scaler.lambda.amazonaws.com' } },
    },
    {
      Effect: 'Allow',
      Action: [
        'ec2:DescribeAvailabilityZones',
        'ec2:DescribeCapacityReservations',
        'ec2:DescribeInstances',
        'ec2:DescribeInstanceStatus',
        'ec2:DescribeInstanceTypeOfferings',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeSubnets',
      ],
      Resource: '*',
    },
    { Effect: 'Allow', Action: ['ec2:RunInstances', 'ec2:CreateNetworkInterface'], Resource: ['arn:aws:ec2:*:*:subnet/*', 'arn:aws:ec2:*:*:security-group/*'] },
    { Effect: 'Allow', Action: ['ec2:RunInstances'], Resource: ['arn:aws:ec2:*:*:image/*'], Condition: { StringEquals: { 'ec2:Owner': 'amazon' } } },
  ],
};

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
  AWSLambdaManagedEC2ResourceOperator: MANAGED_EC2_RESOURCE_OPERATOR,
};

const AWS_MANAGED_ARN = /^arn:[^:]+:iam::aws:policy\/(.+)$/;

/** The document of an AWS managed policy ARN, or `undefined` when the catalog does not hold it. */
export function managedPolicyDocument(policyArn: string): unknown {
  const name = AWS_MANAGED_ARN.exec(policyArn)?.[1];
  return name === undefined ? undefined : MANAGED_POLICIES[name];
}
