/** IAM's evaluation rules, on small templates: identity-based policies, resource-based policies, KMS. */
import {
  authorize,
  authorizeServiceDelivery,
  compileRolePolicies,
  deployedResolveContext,
  functionPrincipal,
  NothingToAuthorizeError,
  PolicyDocumentError,
  requestKeys,
  UnknownManagedPolicyError,
  UnknownRoleError,
  UnsupportedConditionOperatorError,
  type AuthorizationResult,
  type Permission,
  type RequestContext,
  type RolePolicies,
} from '../../../emulator/iam';
import { resolveValue } from '../../../aws/cloudformation/intrinsics';
import type { Template, TemplateResource } from '../../../aws/cloudformation/template';

const ACCOUNT = '123456789012';
const SCOPE = { stackName: 'S', region: 'us-east-1', accountId: ACCOUNT } as const;
const ORDERS = `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/Orders`;
const SECRETS = `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/Secrets`;
const QUEUE = `arn:aws:sqs:us-east-1:${ACCOUNT}:S-Queue`;
const TLS: RequestContext = { 'aws:SecureTransport': 'true' };
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/S-Role`;
const SESSION_ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/S-Role/fn`;

type Statement = Record<string, unknown>;

/** A template with one role ("Role", named S-Role), the given statements in its policy, and more resources. */
function templateWith(statements: readonly Statement[], more: Record<string, TemplateResource> = {}): Template {
  return {
    Resources: {
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      Policy: { Type: 'AWS::IAM::Policy', Properties: { PolicyName: 'P', Roles: [{ Ref: 'Role' }], PolicyDocument: { Version: '2012-10-17', Statement: statements } } },
      ...more,
    },
  };
}

function compile(template: Template): RolePolicies {
  const context = deployedResolveContext(template, SCOPE);
  return compileRolePolicies(template, (value) => resolveValue(value, context));
}

function check(policies: RolePolicies, permissions: readonly Permission[], context: RequestContext = TLS): AuthorizationResult {
  const principal = { roleLogicalId: 'Role', roleName: 'S-Role', roleId: 'AROAEXAMPLE', sessionName: 'fn', accountId: ACCOUNT };
  return authorize(policies, { service: 'dynamodb', principal, permissions, context, requestId: 'req-1' });
}

const put = (resource = ORDERS): Permission => ({ action: 'dynamodb:PutItem', resource });
const allow = (Action: unknown, Resource: unknown = '*', extra: Statement = {}): Statement => ({ Effect: 'Allow', Action, Resource, ...extra });
const deny = (Action: unknown, Resource: unknown = '*', extra: Statement = {}): Statement => ({ Effect: 'Deny', Action, Resource, ...extra });

describe('identity-based policies', () => {
  test('no Allow is an implicit deny, worded as AWS words it', () => {
    expect(check(compile(templateWith([allow('dynamodb:GetItem', ORDERS)])), [put()])).toMatchObject({
      allowed: false,
      reason: 'no-allow',
      policyType: 'identity-based',
      denial: {
        code: 'AccessDeniedException',
        status: 400,
        message: `User: ${SESSION_ARN} is not authorized to perform: dynamodb:PutItem on resource: ${ORDERS} because no identity-based policy allows the dynamodb:PutItem action`,
      },
    });
  });

  test('an Allow allows', () => {
    expect(check(compile(templateWith([allow('dynamodb:PutItem', ORDERS)])), [put()])).toEqual({ allowed: true });
  });

  test('an explicit Deny beats an Allow, in any policy of the role', () => {
    const template = templateWith([allow('dynamodb:*')], {
      Guard: { Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'Role' }], PolicyDocument: { Statement: deny('dynamodb:PutItem', SECRETS) } } },
    });
    const policies = compile(template);
    expect(check(policies, [put()])).toEqual({ allowed: true });
    expect(check(policies, [put(SECRETS)])).toMatchObject({
      allowed: false,
      reason: 'explicit-deny',
      origin: { policy: 'Guard', index: 0 },
      denial: { message: `User: ${SESSION_ARN} is not authorized to perform: dynamodb:PutItem on resource: ${SECRETS} with an explicit deny in an identity-based policy` },
    });
  });

  test('the first permission refused is reported', () => {
    const policies = compile(templateWith([allow('dynamodb:PutItem', ORDERS)]));
    expect(check(policies, [put(), put(SECRETS), { action: 'dynamodb:UpdateItem', resource: ORDERS }])).toMatchObject({ allowed: false, resource: SECRETS });
  });

  test.each([
    // [statements, permission, allowed]
    [[allow({ 'Fn::Split': [',', 'sqs:SendMessage,dynamodb:PutItem'] }, ORDERS)], put(), true],
    [[allow(['sqs:SendMessage', 'dynamodb:PutItem'], [SECRETS, ORDERS])], put(), true],
    [[{ Effect: 'Allow', NotAction: 'sqs:*', Resource: '*' }], put(), true],
    [[{ Effect: 'Allow', NotAction: ['sqs:*', 'dynamodb:Put*'], Resource: '*' }], put(), false],
    [[{ Effect: 'Allow', Action: 'dynamodb:*', NotResource: SECRETS }], put(), true],
    [[{ Effect: 'Allow', Action: 'dynamodb:*', NotResource: [SECRETS] }], put(SECRETS), false],
    [[allow('*'), { Effect: 'Deny', Action: '*', NotResource: ORDERS }], put(), true],
    [[allow('*'), { Effect: 'Deny', Action: '*', NotResource: ORDERS }], put(SECRETS), false],
    [[allow('*'), { Effect: 'Deny', NotAction: 'dynamodb:PutItem', Resource: '*' }], put(), true],
    [[allow('dynamodb:*', 'arn:aws:dynamodb:*:*:table/Ord*')], put(), true],
    [[allow('DynamoDB:putitem', ORDERS)], put(), true],
    [[allow('dynamodb:PutItem', 'arn:aws:dynamodb:us-east-1:123456789012:table/orders')], put(), false],
  ] as const)('%j: %j allowed %s', (statements, permission, allowed) => {
    expect(check(compile(templateWith(statements)), [permission]).allowed).toBe(allowed);
  });

  test('conditions see the global keys of the role session, and the context given', () => {
    const policies = compile(templateWith([
      allow('dynamodb:PutItem', ORDERS, { Condition: { StringEquals: { 'aws:PrincipalAccount': ACCOUNT }, ArnLike: { 'aws:PrincipalArn': `arn:aws:iam::${ACCOUNT}:role/S-*` } } }),
      allow('dynamodb:GetItem', ORDERS, { Condition: { StringEquals: { 'aws:RequestedRegion': 'eu-west-1' } } }),
    ]));
    expect(check(policies, [put()])).toEqual({ allowed: true });
    expect(check(policies, [{ action: 'dynamodb:GetItem', resource: ORDERS }]).allowed).toBe(false);
    expect(check(policies, [{ action: 'dynamodb:GetItem', resource: ORDERS }], { ...TLS, 'aws:RequestedRegion': 'eu-west-1' })).toEqual({ allowed: true });
  });
});

describe('the request context: the keys AWS sets, the keys it leaves out, the keys local mode cannot know', () => {
  const NOW = new Date('2026-12-01T10:00:00.123Z');
  const request = (): RequestContext => requestKeys({ region: 'us-east-1', time: NOW, sourceIp: '127.0.0.1', userAgent: 'aws-sdk-js/3' });
  const guarded = (Condition: Record<string, unknown>) => compile(templateWith([allow('*'), deny('dynamodb:PutItem', ORDERS, { Condition })]));

  test('requestKeys: the request\'s own keys, times without milliseconds', () => {
    expect(request()).toEqual({
      'aws:SecureTransport': 'true',
      'aws:RequestedRegion': 'us-east-1',
      'aws:CurrentTime': '2026-12-01T10:00:00Z',
      'aws:EpochTime': '1796119200',
      'aws:SourceIp': '127.0.0.1',
      'aws:UserAgent': 'aws-sdk-js/3',
    });
  });

  test.each([
    [{ StringEquals: { 'aws:RequestedRegion': 'us-east-1' } }, true],
    [{ StringEquals: { 'aws:RequestedRegion': 'eu-west-1' } }, false],
    [{ Bool: { 'aws:ViaAWSService': 'false', 'aws:PrincipalIsAWSService': 'false' } }, true],
    [{ Bool: { 'aws:ViaAWSService': 'true' } }, false],
    [{ StringEquals: { 'aws:userid': 'AROAEXAMPLE:fn', 'aws:PrincipalType': 'AssumedRole' } }, true],
    [{ NumericGreaterThanEquals: { 'aws:EpochTime': '1796119200' } }, true],
    [{ StringEquals: { 'aws:ResourceAccount': ACCOUNT } }, true],
    [{ StringNotEquals: { 'aws:SourceAccount': ACCOUNT } }, true], // absent for a role session's own call: a negated operator holds
    [{ StringEquals: { 'aws:username': 'fn' } }, false], // absent: a role session has no user name
  ])('a Deny on %j, with the keys AWS sets: denied %s', (condition, denied) => {
    expect(check(guarded(condition), [put()], request()).allowed).toBe(!denied);
  });

  test('a Deny whose condition reads a key local mode cannot know applies, and says so (fail closed)', () => {
    // With the old rule (an absent key fails StringEquals) this Deny was skipped: AWS applies it to every account of the organization.
    expect(check(guarded({ StringEquals: { 'aws:PrincipalOrgID': 'o-abc' } }), [put()], request())).toMatchObject({
      allowed: false,
      reason: 'explicit-deny',
      origin: { policy: 'Policy', index: 1 },
      unknownKeys: ['aws:PrincipalOrgID'],
      denial: { message: expect.stringContaining('with an explicit deny in an identity-based policy (local mode: Policy statement 1 denies it if its condition on aws:PrincipalOrgID holds, which local mode cannot know: the Deny applies (fail closed))') },
    });
  });

  test.each([
    ['a service key the request does not set', { StringEquals: { 'dynamodb:LeadingKeys': 'tenant-1' } }],
    ['a tag of the principal', { StringEquals: { 'aws:PrincipalTag/team': 'ledger' } }],
    ['a VPC endpoint', { StringNotEqualsIfExists: { 'aws:SourceVpce': 'vpce-1' } }],
    ['the presence of an organization', { Null: { 'aws:PrincipalOrgID': 'true' } }],
  ])('so does one on %s', (_what, condition) => {
    expect(check(guarded(condition), [put()], request())).toMatchObject({ allowed: false, reason: 'explicit-deny', unknownKeys: [expect.any(String)] });
  });

  test('a key local mode knows decides the block first: a false test keeps the Deny from applying', () => {
    expect(check(guarded({ StringEquals: { 'aws:PrincipalOrgID': 'o-abc' }, Bool: { 'aws:SecureTransport': 'false' } }), [put()], request())).toEqual({ allowed: true });
  });

  test('an Allow whose condition reads a key local mode cannot know does not allow, even with IfExists', () => {
    const policies = compile(templateWith([allow('dynamodb:PutItem', ORDERS, { Condition: { StringEqualsIfExists: { 'aws:PrincipalTag/team': 'ledger' } } })]));
    expect(check(policies, [put()], request())).toMatchObject({
      allowed: false,
      reason: 'no-allow',
      unknownKeys: ['aws:PrincipalTag/team'],
      denial: { message: expect.stringContaining('(local mode: Policy statement 0 allows it only if its condition on aws:PrincipalTag/team holds, which local mode cannot know: it does not allow (fail closed))') },
    });
  });

  test('a request that names no permission is never allowed', () => {
    expect(() => check(compile(templateWith([allow('*')])), [])).toThrow(NothingToAuthorizeError);
  });
});

describe('a condition operator it does not implement fails closed', () => {
  const undecided = allow('dynamodb:PutItem', ORDERS, { Condition: { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01T00:00:00Z' } } });

  test('when the decision depends on it, the request is refused with an error naming it', () => {
    const policies = compile(templateWith([undecided]));
    expect(() => check(policies, [put()])).toThrow(UnsupportedConditionOperatorError);
    expect(() => check(policies, [put()])).toThrow('condition operator DateGreaterThan (in Policy statement 0) is not implemented');
  });

  test('an undecided Deny refuses even beside an Allow', () => {
    const policies = compile(templateWith([allow('*'), { ...undecided, Effect: 'Deny' }]));
    expect(() => check(policies, [put()])).toThrow(UnsupportedConditionOperatorError);
  });

  test('when another statement decides anyway, it does not matter', () => {
    expect(check(compile(templateWith([undecided, allow('dynamodb:PutItem')])), [put()])).toEqual({ allowed: true });
    expect(check(compile(templateWith([undecided, deny('dynamodb:PutItem')])), [put()])).toMatchObject({ allowed: false, reason: 'explicit-deny' });
    expect(check(compile(templateWith([undecided])), [put(SECRETS)])).toMatchObject({ allowed: false, reason: 'no-allow' });
  });
});

describe('resource-based policies', () => {
  const queue = (statements: readonly Statement[]): Record<string, TemplateResource> => ({
    Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
    QueuePolicy: { Type: 'AWS::SQS::QueuePolicy', Properties: { Queues: [{ Ref: 'Queue' }], PolicyDocument: { Version: '2012-10-17', Statement: statements } } },
  });
  const enforceSsl = deny('sqs:*', { 'Fn::GetAtt': ['Queue', 'Arn'] }, { Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  const send: Permission = { action: 'sqs:SendMessage', resource: QUEUE };
  const sendAs = (policies: RolePolicies, context: RequestContext): AuthorizationResult =>
    authorize(policies, { service: 'sqs', principal: { roleLogicalId: 'Role', roleName: 'S-Role', sessionName: 'fn', accountId: ACCOUNT }, permissions: [send], context, requestId: 'r' });

  test('a queue policy\'s Deny of requests without TLS refuses them; the contract layer stands in for TLS', () => {
    const policies = compile(templateWith([allow('sqs:SendMessage', QUEUE)], queue([enforceSsl])));
    expect(sendAs(policies, { 'aws:SecureTransport': 'true' })).toEqual({ allowed: true });
    expect(sendAs(policies, { 'aws:SecureTransport': 'false' })).toMatchObject({
      allowed: false,
      reason: 'explicit-deny',
      policyType: 'resource-based',
      origin: { policy: 'QueuePolicy', index: 0 },
      denial: {
        code: 'AccessDenied',
        status: 403,
        message: `User: ${SESSION_ARN} is not authorized to perform: sqs:sendmessage on resource: ${QUEUE} with an explicit deny in a resource-based policy`,
      },
    });
  });

  test('within the account, a queue policy that names the caller allows without an identity-based Allow', () => {
    const grant = allow('sqs:SendMessage', QUEUE, { Principal: { AWS: ROLE_ARN } });
    expect(sendAs(compile(templateWith([], queue([grant]))), TLS)).toEqual({ allowed: true });
    const toSession = allow('sqs:SendMessage', QUEUE, { Principal: { AWS: [SESSION_ARN] } });
    expect(sendAs(compile(templateWith([], queue([toSession]))), TLS)).toEqual({ allowed: true });
  });

  test('a queue policy that names the account, or a service, grants the role nothing by itself', () => {
    const toAccount = allow('sqs:SendMessage', QUEUE, { Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } } });
    const toService = allow('sqs:SendMessage', QUEUE, { Principal: { Service: 'sns.amazonaws.com' } });
    for (const grant of [toAccount, toService]) {
      expect(sendAs(compile(templateWith([], queue([grant]))), TLS)).toMatchObject({ allowed: false, reason: 'no-allow', policyType: 'identity-based' });
    }
  });

  test('a Deny naming the account applies to its roles', () => {
    const denyAccount = deny('sqs:*', QUEUE, { Principal: { AWS: ACCOUNT } });
    expect(sendAs(compile(templateWith([allow('sqs:*')], queue([denyAccount]))), TLS)).toMatchObject({ allowed: false, reason: 'explicit-deny' });
  });

  // IAM User Guide, "AWS JSON policy elements: NotPrincipal": AWS may check the account, then the
  // role, then the role session, so a Deny spares a session only when it names all three.
  const ROOT = `arn:aws:iam::${ACCOUNT}:root`;
  test.each([
    ['the account (root ARN) alone', [ROOT], false],
    ['the account id alone', [ACCOUNT], false],
    ['the role alone', [ROLE_ARN], false],
    ['the account and the role', [ROOT, ROLE_ARN], false],
    ['the session alone', [SESSION_ARN], false],
    ['another role, its session and the account', [ROOT, `arn:aws:iam::${ACCOUNT}:role/Other`, `arn:aws:sts::${ACCOUNT}:assumed-role/Other/fn`], false],
    ['the account, the role and the session', [ROOT, ROLE_ARN, SESSION_ARN], true],
    ['the account id, the role and the session', [ACCOUNT, ROLE_ARN, SESSION_ARN], true],
    ['everyone', ['*'], true],
  ])('a Deny whose NotPrincipal names %s spares the role session: %s', (_what, names, spared) => {
    const notPrincipal = { Effect: 'Deny', NotPrincipal: { AWS: names }, Action: 'sqs:*', Resource: QUEUE };
    const result = sendAs(compile(templateWith([allow('sqs:*')], queue([notPrincipal]))), TLS);
    expect(result).toMatchObject(spared ? { allowed: true } : { allowed: false, reason: 'explicit-deny', policyType: 'resource-based' });
  });

  test('an Allow with NotPrincipal, which IAM does not support, grants nothing and says so', () => {
    const everyoneElse = { Effect: 'Allow', NotPrincipal: { AWS: `arn:aws:iam::${ACCOUNT}:role/Other` }, Action: 'sqs:*', Resource: QUEUE };
    const policies = compile(templateWith([], queue([everyoneElse])));
    expect(sendAs(policies, TLS)).toMatchObject({ allowed: false, reason: 'no-allow' });
    expect(policies.notes).toEqual([expect.objectContaining({ element: 'NotPrincipal', detail: expect.stringContaining('NotPrincipal only with Deny') })]);
  });
});

describe('deliveries by a service (SNS to a queue, EventBridge to its target)', () => {
  const TOPIC = `arn:aws:sns:us-east-1:${ACCOUNT}:Views`;
  const OTHER_TOPIC = `arn:aws:sns:us-east-1:${ACCOUNT}:Other`;
  const queueWith = (statements: readonly Statement[]): RolePolicies =>
    compile(templateWith([], {
      Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
      QueuePolicy: { Type: 'AWS::SQS::QueuePolicy', Properties: { Queues: [{ Ref: 'Queue' }], PolicyDocument: { Version: '2012-10-17', Statement: statements } } },
    }));
  const deliver = (policies: RolePolicies, sourceArn = TOPIC, service = 'sns.amazonaws.com') =>
    authorizeServiceDelivery(policies.resourcePolicies, { service, accountId: ACCOUNT, permission: { action: 'sqs:SendMessage', resource: QUEUE }, context: { ...TLS, 'aws:SourceArn': sourceArn } });
  const fromTopic = allow('sqs:SendMessage', QUEUE, { Principal: { Service: 'sns.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': TOPIC } } });

  test('the queue policy must name the service: its statement for the topic allows that topic only', () => {
    expect(deliver(queueWith([fromTopic]))).toEqual({ allowed: true });
    expect(deliver(queueWith([fromTopic]), OTHER_TOPIC)).toEqual({ allowed: false, reason: 'no-allow' });
    expect(deliver(queueWith([fromTopic]), TOPIC, 'events.amazonaws.com')).toEqual({ allowed: false, reason: 'no-allow' });
  });

  test('no queue policy, or one that names only roles, lets no service deliver: no identity-based policy speaks for it', () => {
    expect(deliver(compile(templateWith([allow('sqs:*')])))).toEqual({ allowed: false, reason: 'no-allow' });
    expect(deliver(queueWith([allow('sqs:SendMessage', QUEUE, { Principal: { AWS: ROLE_ARN } })]))).toEqual({ allowed: false, reason: 'no-allow' });
    expect(deliver(queueWith([allow('sqs:SendMessage', QUEUE, { Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } } })]))).toEqual({ allowed: false, reason: 'no-allow' });
  });

  test('a Deny whose condition reads a key local mode cannot know refuses the delivery (fail closed), and says why', () => {
    const orgOnly = deny('sqs:SendMessage', QUEUE, { Principal: '*', Condition: { StringNotEquals: { 'aws:SourceOrgID': 'o-abc' } } });
    expect(deliver(queueWith([fromTopic, orgOnly]))).toMatchObject({ allowed: false, reason: 'explicit-deny', note: expect.stringContaining('aws:SourceOrgID') });
    const userOnly = deny('sqs:SendMessage', QUEUE, { Principal: '*', Condition: { StringEquals: { 'aws:username': 'bob' } } });
    expect(deliver(queueWith([fromTopic, userOnly]))).toEqual({ allowed: true }); // a service's delivery has no user name
  });

  test('"*" names services too; a Deny that matches wins; the enforce-SSL Deny spares a TLS delivery', () => {
    const everyone = allow('sqs:SendMessage', QUEUE, { Principal: '*', Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } } });
    expect(deliver(queueWith([everyone]))).toEqual({ allowed: true });
    const enforceSsl = deny('sqs:*', QUEUE, { Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    expect(deliver(queueWith([enforceSsl, fromTopic]))).toEqual({ allowed: true });
    const denyService = deny('sqs:SendMessage', QUEUE, { Principal: { Service: 'sns.amazonaws.com' } });
    expect(deliver(queueWith([fromTopic, denyService]))).toMatchObject({ allowed: false, reason: 'explicit-deny', origin: { policy: 'QueuePolicy', index: 1 } });
  });
});

describe('S3 bucket policies', () => {
  const OBJECT = 'arn:aws:s3:::archive/aws/lambda/batch.json';
  const bucketWith = (statements: readonly Statement[]): Record<string, TemplateResource> => ({
    Bucket: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'archive' } },
    BucketPolicy: { Type: 'AWS::S3::BucketPolicy', Properties: { Bucket: { Ref: 'Bucket' }, PolicyDocument: { Version: '2012-10-17', Statement: statements } } },
  });
  const putObject = (policies: RolePolicies, context: RequestContext = TLS) => check(policies, [{ action: 's3:PutObject', resource: OBJECT }], context);

  test('a bucket policy covers its objects: its Deny of requests without TLS applies to them', () => {
    const enforceSsl = deny('s3:*', ['arn:aws:s3:::archive', 'arn:aws:s3:::archive/*'], { Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    const policies = compile(templateWith([allow('s3:PutObject', 'arn:aws:s3:::archive/*')], bucketWith([enforceSsl])));
    expect(putObject(policies)).toEqual({ allowed: true });
    expect(putObject(policies, { 'aws:SecureTransport': 'false' })).toMatchObject({ allowed: false, reason: 'explicit-deny', policyType: 'resource-based', origin: { policy: 'BucketPolicy' } });
  });

  test('within the account, a bucket policy naming the role allows without an identity-based Allow', () => {
    expect(putObject(compile(templateWith([], bucketWith([allow('s3:PutObject', 'arn:aws:s3:::archive/*', { Principal: { AWS: ROLE_ARN } })]))))).toEqual({ allowed: true });
  });
});

describe('KMS key policies', () => {
  const keyWith = (statements: readonly Statement[] | undefined): Record<string, TemplateResource> => ({
    Key: { Type: 'AWS::KMS::Key', Properties: statements ? { KeyPolicy: { Version: '2012-10-17', Statement: statements } } : {} },
  });
  const keyArn = (policies: RolePolicies): string => [...policies.resourcePolicies.values()].find((policy) => policy.kind === 'kms-key')?.resourceArn ?? '';
  const generate = (policies: RolePolicies): AuthorizationResult => check(policies, [{ action: 'kms:GenerateDataKey', resource: keyArn(policies) }]);
  const root = { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } };

  test('a key policy that allows the account root delegates to the identity-based policies', () => {
    const statements = [allow('kms:*', '*', { Principal: root })];
    expect(generate(compile(templateWith([allow(['kms:Decrypt', 'kms:GenerateDataKey*'])], keyWith(statements)))).allowed).toBe(true);
    expect(generate(compile(templateWith([allow('kms:Decrypt')], keyWith(statements))))).toMatchObject({ allowed: false, reason: 'no-allow', policyType: 'identity-based' });
  });

  test('a key without a KeyPolicy gets the default one: the account, so IAM, decides', () => {
    expect(generate(compile(templateWith([allow('kms:GenerateDataKey')], keyWith(undefined)))).allowed).toBe(true);
  });

  test('without the key policy\'s Allow, an identity-based Allow is not enough', () => {
    const cloudwatchOnly = [allow(['kms:Decrypt', 'kms:GenerateDataKey*'], '*', { Principal: { Service: 'cloudwatch.amazonaws.com' } })];
    const policies = compile(templateWith([allow('kms:*')], keyWith(cloudwatchOnly)));
    expect(generate(policies)).toMatchObject({
      allowed: false,
      reason: 'no-allow',
      policyType: 'resource-based',
      denial: { message: expect.stringContaining('because no resource-based policy allows the kms:GenerateDataKey action') },
    });
  });

  test('a key the template does not declare: its key policy is unknown, so even an identity-based Allow is refused (fail closed)', () => {
    const elsewhere = `arn:aws:kms:us-east-1:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
    expect(check(compile(templateWith([allow('kms:*')])), [{ action: 'kms:GenerateDataKey', resource: elsewhere }])).toMatchObject({
      allowed: false,
      reason: 'no-allow',
      policyType: 'resource-based',
      denial: { message: expect.stringContaining(`(local mode: the key ${elsewhere} is not declared in the template, so local mode cannot read its key policy, which must allow the call: refused (fail closed))`) },
    });
  });

  test('a key policy that names the role allows it without IAM', () => {
    expect(generate(compile(templateWith([], keyWith([allow('kms:GenerateDataKey', '*', { Principal: { AWS: ROLE_ARN } })])))).allowed).toBe(true);
  });
});

describe('policies from the template', () => {
  const role = (properties: Record<string, unknown>): Template => ({ Resources: { Role: { Type: 'AWS::IAM::Role', Properties: properties } } });
  const receive: Permission = { action: 'sqs:ReceiveMessage', resource: QUEUE };
  const managed = (name: string): unknown => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/service-role/${name}`]] });

  test('inline Policies of the role apply', () => {
    const policies = compile(role({ Policies: [{ PolicyName: 'Inline', PolicyDocument: { Statement: [allow('sqs:ReceiveMessage', QUEUE)] } }] }));
    expect(check(policies, [receive])).toEqual({ allowed: true });
    expect(policies.roles.get('Role')?.statements[0].origin).toEqual({ policy: 'Role/Inline', index: 0 });
  });

  test.each([
    ['AWSLambdaSQSQueueExecutionRole', receive, true],
    ['AWSLambdaSQSQueueExecutionRole', { action: 'sqs:SendMessage', resource: QUEUE }, false],
    ['AWSLambdaBasicExecutionRole', { action: 'logs:PutLogEvents', resource: 'arn:aws:logs:us-east-1:1:log-group:g:*' }, true],
    ['AWSLambdaBasicExecutionRole', receive, false],
    ['AWSLambdaKinesisExecutionRole', { action: 'kinesis:SubscribeToShard', resource: 'arn:aws:kinesis:us-east-1:1:stream/s/consumer/c:1' }, true],
    ['AWSLambdaKinesisExecutionRole', { action: 'kinesis:PutRecord', resource: 'arn:aws:kinesis:us-east-1:1:stream/s' }, false],
    ['AWSLambdaDynamoDBExecutionRole', { action: 'dynamodb:GetRecords', resource: `${ORDERS}/stream/x` }, true],
    ['AWSLambdaDynamoDBExecutionRole', put(), false],
  ] as const)('the AWS managed policy %s: %j allowed %s', (name, permission, allowed) => {
    expect(check(compile(role({ ManagedPolicyArns: [managed(name)] })), [permission]).allowed).toBe(allowed);
  });

  test("the operator role's AWSLambdaManagedEC2ResourceOperator (a capacity provider's): its EC2 describes, nothing of the stack's data", () => {
    const operator = compile(role({ ManagedPolicyArns: ['arn:aws:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator'] }));
    expect(check(operator, [{ action: 'ec2:DescribeSubnets', resource: '*' }]).allowed).toBe(true);
    expect(check(operator, [{ action: 'ec2:CreateNetworkInterface', resource: 'arn:aws:ec2:us-east-1:1:subnet/subnet-1' }]).allowed).toBe(true);
    expect(check(operator, [{ action: 'ec2:TerminateInstances', resource: 'arn:aws:ec2:us-east-1:1:instance/i-1' }]).allowed).toBe(false);
    expect(check(operator, [receive]).allowed).toBe(false);
    expect(check(operator, [put()]).allowed).toBe(false);
  });

  test('an AWS managed policy it does not know is an error naming it, not an allow', () => {
    expect(() => compile(role({ ManagedPolicyArns: [managed('AWSLambdaVPCAccessExecutionRole')] }))).toThrow(UnknownManagedPolicyError);
    expect(() => compile(role({ ManagedPolicyArns: ['arn:aws:iam::aws:policy/AdministratorAccess'] }))).toThrow('role Role uses managed policy arn:aws:iam::aws:policy/AdministratorAccess, which local mode does not know');
  });

  test('a template ManagedPolicy applies through ManagedPolicyArns or through its Roles, once', () => {
    const document = { Statement: [allow('sqs:ReceiveMessage', QUEUE)] };
    const byArn = compile({ Resources: { ...role({ ManagedPolicyArns: [{ Ref: 'Managed' }] }).Resources, Managed: { Type: 'AWS::IAM::ManagedPolicy', Properties: { PolicyDocument: document, Roles: [{ Ref: 'Role' }] } } } });
    expect(check(byArn, [receive])).toEqual({ allowed: true });
    expect(byArn.roles.get('Role')?.statements).toHaveLength(1);
    const byRoles = compile({ Resources: { ...role({}).Resources, Managed: { Type: 'AWS::IAM::ManagedPolicy', Properties: { PolicyDocument: document, Roles: [{ Ref: 'Role' }] } } } });
    expect(check(byRoles, [receive])).toEqual({ allowed: true });
  });

  test('a policy for another role does not apply', () => {
    const template = templateWith([allow('*')], { Other: { Type: 'AWS::IAM::Role', Properties: {} } });
    const policies = compile({ Resources: { ...template.Resources, Policy: { ...template.Resources.Policy, Properties: { ...template.Resources.Policy.Properties, Roles: [{ Ref: 'Other' }] } } } });
    expect(check(policies, [put()]).allowed).toBe(false);
  });

  test('a function is known by its Role; an unknown one is an error', () => {
    const template = templateWith([allow('*')], { Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } } });
    const policies = compile(template);
    expect(functionPrincipal(policies, 'Fn', { functionName: 'fn', accountId: ACCOUNT })).toEqual({ roleLogicalId: 'Role', roleName: 'S-Role', roleId: expect.stringMatching(/^AROA/), sessionName: 'fn', accountId: ACCOUNT, partition: undefined });
    expect(() => functionPrincipal(policies, 'Nope', { functionName: 'x', accountId: ACCOUNT })).toThrow(UnknownRoleError);
  });

  test('an Allow loses what the resolver cannot resolve, and says so; a Deny it cannot resolve is an error', () => {
    const policies = compile(templateWith([allow('dynamodb:PutItem', [ORDERS, { 'Fn::GetAtt': ['Missing', 'Arn'] }])]));
    expect(check(policies, [put()])).toEqual({ allowed: true });
    expect(policies.notes).toEqual([expect.objectContaining({ element: 'Resource', value: { 'Fn::GetAtt': ['Missing', 'Arn'] } })]);
    const widening = compile(templateWith([{ Effect: 'Allow', Action: '*', NotResource: { Ref: 'Missing' } }]));
    expect(widening.roles.get('Role')?.statements).toHaveLength(0);
    expect(() => compile(templateWith([deny('*', { 'Fn::GetAtt': ['Missing', 'Arn'] })]))).toThrow(PolicyDocumentError);
  });

  test('a Deny loses only NotResource entries it cannot resolve (it denies more without them); an Allow with an unresolvable Condition is set aside', () => {
    const guarded = compile(templateWith([allow('*'), { Effect: 'Deny', Action: '*', NotResource: [ORDERS, { Ref: 'Missing' }] }]));
    expect(check(guarded, [put()])).toEqual({ allowed: true });
    expect(check(guarded, [put(SECRETS)])).toMatchObject({ allowed: false, reason: 'explicit-deny' });
    expect(guarded.notes).toEqual([expect.objectContaining({ element: 'NotResource', detail: expect.stringContaining('the statement grants less without it') })]);
    const conditional = compile(templateWith([allow('*', '*', { Condition: { StringEquals: { 'aws:SourceArn': { Ref: 'Missing' } } } })]));
    expect(check(conditional, [put()]).allowed).toBe(false);
    expect(conditional.notes).toEqual([expect.objectContaining({ element: 'Condition' })]);
  });

  test.each([
    [{ Effect: 'Allow', Resource: '*' }, 'the statement needs Action or NotAction'],
    [{ Effect: 'Allow', Action: '*' }, 'the statement needs Resource or NotResource'],
    [{ Effect: 'Allow', Action: '*', NotAction: 's3:*', Resource: '*' }, 'a statement has either Action or NotAction, not both'],
    [{ Effect: 'Permit', Action: '*', Resource: '*' }, 'Effect must be Allow or Deny (given "Permit")'],
    [{ Effect: 'Allow', Action: '*', Resource: '*', Principal: '*' }, 'an identity-based policy may not name a Principal'],
  ])('a statement IAM would refuse is an error: %j', (statement, message) => {
    expect(() => compile(templateWith([statement]))).toThrow(message);
  });
});
