/** Condition blocks as IAM evaluates them, against a request's context. */
import { compileCondition, conditionLookup, SUPPORTED_CONDITION_OPERATORS, UNKNOWN_KEY } from '../../../emulator/iam/conditions';
import { PolicyDocumentError } from '../../../emulator/iam/errors';
import type { ConditionValues } from '../../../emulator/iam/types';

function evaluate(block: unknown, context: ConditionValues): unknown {
  return compileCondition(block, 'Test').evaluate(conditionLookup(context));
}

const ALARM = 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:OrdersDlq';

test.each([
  // [block, context, outcome]
  [{ StringEquals: { 'aws:SourceAccount': '123456789012' } }, { 'aws:SourceAccount': '123456789012' }, true],
  [{ StringEquals: { 'aws:SourceAccount': '123456789012' } }, { 'aws:SourceAccount': '999999999999' }, false],
  [{ StringEquals: { 'aws:SourceAccount': '123456789012' } }, {}, false], // a missing key fails a positive operator
  [{ StringEquals: { 'aws:SourceAccount': ['1', '123456789012'] } }, { 'aws:SourceAccount': '123456789012' }, true], // values: any
  [{ StringEquals: { 'AWS:SourceAccount': '1' } }, { 'aws:sourceaccount': '1' }, true], // key names: any case
  [{ StringEquals: { 'kms:ViaService': 'sns.us-east-1.amazonaws.com' } }, { 'kms:ViaService': 'SNS.us-east-1.amazonaws.com' }, false], // values: case-sensitive
  [{ StringEqualsIgnoreCase: { 'kms:ViaService': 'sns.us-east-1.amazonaws.com' } }, { 'kms:ViaService': 'SNS.us-east-1.amazonaws.com' }, true],
  [{ StringNotEquals: { 'aws:SourceAccount': ['1', '2'] } }, { 'aws:SourceAccount': '3' }, true], // negated: none may match
  [{ StringNotEquals: { 'aws:SourceAccount': ['1', '2'] } }, { 'aws:SourceAccount': '2' }, false],
  [{ StringNotEquals: { 'aws:SourceAccount': '1' } }, {}, true], // a missing key passes a negated operator
  [{ StringLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:*:*:alarm:*' } }, { 'aws:SourceArn': ALARM }, true],
  [{ StringNotLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:*' } }, { 'aws:SourceArn': ALARM }, false],
  [{ ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:*' } }, { 'aws:SourceArn': ALARM }, true],
  [{ ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:*' } }, { 'aws:SourceArn': 'arn:aws:events:us-east-1:123456789012:rule/x' }, false],
  [{ ArnEquals: { 'aws:SourceArn': ALARM } }, { 'aws:SourceArn': ALARM }, true],
  [{ ArnNotEquals: { 'aws:SourceArn': ALARM } }, { 'aws:SourceArn': ALARM }, false],
  [{ ArnNotLike: { 'aws:SourceArn': 'arn:aws:sns:*' } }, {}, true],
  [{ Bool: { 'aws:SecureTransport': 'false' } }, { 'aws:SecureTransport': 'false' }, true],
  [{ Bool: { 'aws:SecureTransport': 'false' } }, { 'aws:SecureTransport': 'true' }, false],
  [{ Bool: { 'aws:SecureTransport': false } }, { 'aws:SecureTransport': 'FALSE' }, true], // JSON booleans, any case
  [{ Bool: { 'aws:SecureTransport': 'false' } }, {}, false],
  [{ BoolIfExists: { 'aws:MultiFactorAuthPresent': 'false' } }, {}, true], // IfExists: absent passes
  [{ BoolIfExists: { 'aws:MultiFactorAuthPresent': 'false' } }, { 'aws:MultiFactorAuthPresent': 'true' }, false],
  [{ StringEqualsIfExists: { 'aws:SourceAccount': '1' } }, { 'aws:SourceAccount': '2' }, false], // IfExists: present is checked
  [{ ArnLikeIfExists: { 'aws:SourceArn': 'arn:aws:cloudwatch:*' } }, {}, true],
  [{ StringLikeIfExists: { 'aws:SourceArn': 'arn:aws:sns:*' } }, { 'aws:SourceArn': ALARM }, false],
  [{ Null: { 'aws:TokenIssueTime': 'true' } }, {}, true],
  [{ Null: { 'aws:TokenIssueTime': 'true' } }, { 'aws:TokenIssueTime': 'x' }, false],
  [{ Null: { 'aws:TokenIssueTime': 'false' } }, { 'aws:TokenIssueTime': 'x' }, true],
  [{ NumericLessThan: { 's3:max-keys': '10' } }, { 's3:max-keys': '9' }, true],
  [{ NumericLessThan: { 's3:max-keys': '10' } }, { 's3:max-keys': 'ten' }, false],
  [{ NumericGreaterThanEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': '10' }, true],
  // every operator and every key must hold
  [{ ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:*' }, StringEquals: { 'aws:SourceAccount': '1' } }, { 'aws:SourceArn': ALARM, 'aws:SourceAccount': '1' }, true],
  [{ ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:*' }, StringEquals: { 'aws:SourceAccount': '1' } }, { 'aws:SourceArn': ALARM, 'aws:SourceAccount': '2' }, false],
  [{ StringEquals: { 'aws:SourceAccount': '1', 'aws:SourceArn': ALARM } }, { 'aws:SourceAccount': '1' }, false],
  [undefined, {}, true],
])('%j with %j is %s', (block, context, outcome) => {
  expect(evaluate(block, context as ConditionValues)).toBe(outcome);
});

test.each([
  ['DateGreaterThan', { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01T00:00:00Z' } }],
  ['IpAddress', { IpAddress: { 'aws:SourceIp': '203.0.113.0/24' } }],
  ['ForAnyValue:StringEquals', { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['a'] } }],
  ['StringLike with a policy variable', { StringLike: { 's3:prefix': '${aws:username}/*' } }],
])('an operator it does not implement (%s) leaves the block undecided, naming it', (operator, block) => {
  expect(evaluate(block, { 'aws:CurrentTime': '2030-01-01T00:00:00Z' })).toEqual({ unsupported: operator });
});

test('a false test decides the block even beside an unimplemented operator', () => {
  expect(evaluate({ DateGreaterThan: { 'aws:CurrentTime': 'x' }, Bool: { 'aws:SecureTransport': 'false' } }, { 'aws:SecureTransport': 'true' })).toBe(false);
});

test('a Condition that is not an object of objects is refused', () => {
  expect(() => compileCondition({ Bool: 'aws:SecureTransport' }, 'Test')).toThrow(PolicyDocumentError);
  expect(() => compileCondition('Bool', 'Test')).toThrow('policy Test: a Condition must map operators to objects of keys (given "Bool")');
});

test('the operators CDK templates use are implemented, each also with IfExists', () => {
  expect(SUPPORTED_CONDITION_OPERATORS).toEqual(expect.arrayContaining(['StringEquals', 'StringLike', 'ArnEquals', 'ArnLike', 'Bool', 'Null']));
  for (const operator of ['StringEqualsIfExists', 'ArnLikeIfExists', 'BoolIfExists']) {
    expect(evaluate({ [operator]: { 'x:Key': 'v' } }, {})).toBe(true);
  }
});

describe('keys local mode cannot know', () => {
  /** `aws:PrincipalOrgID` and `aws:PrincipalTag/*` unknown; `aws:SourceArn` given as absent (`null`). */
  const knows = (key: string): boolean => key !== 'aws:principalorgid' && !key.startsWith('aws:principaltag/');
  const evaluateKnowing = (block: unknown, context: ConditionValues) => compileCondition(block, 'Test').evaluate(conditionLookup(context, knows));

  test('a lookup tells a key given as null (absent) from one it cannot know', () => {
    const lookup = conditionLookup({ 'aws:SourceArn': null, 'aws:SecureTransport': 'true' }, knows);
    expect(lookup('aws:sourcearn')).toBeUndefined();
    expect(lookup('aws:securetransport')).toEqual(['true']);
    expect(lookup('aws:principalorgid')).toBe(UNKNOWN_KEY);
    expect(lookup('aws:username')).toBeUndefined(); // not given, but known: absent
  });

  test.each([
    [{ StringEquals: { 'aws:PrincipalOrgID': 'o-1' } }],
    [{ StringNotEquals: { 'aws:PrincipalOrgID': 'o-1' } }],
    [{ StringEqualsIfExists: { 'aws:PrincipalOrgID': 'o-1' } }],
    [{ Null: { 'aws:PrincipalOrgID': 'true' } }],
  ])('%j is undecided, naming the key as the policy spells it', (block) => {
    expect(evaluateKnowing(block, {})).toEqual({ unknownKeys: ['aws:PrincipalOrgID'] });
  });

  test('a false test on a known key decides the block; every unknown key is named once', () => {
    expect(evaluateKnowing({ StringEquals: { 'aws:PrincipalOrgID': 'o-1' }, Bool: { 'aws:SecureTransport': 'false' } }, { 'aws:SecureTransport': 'true' })).toBe(false);
    const block = { StringEquals: { 'aws:PrincipalOrgID': 'o-1', 'aws:PrincipalTag/team': 'a' }, StringLike: { 'aws:PrincipalOrgID': 'o-*' } };
    expect(evaluateKnowing(block, {})).toEqual({ unknownKeys: ['aws:PrincipalOrgID', 'aws:PrincipalTag/team'] });
  });

  test('an unimplemented operator outweighs an unknown key: the request is refused naming the operator', () => {
    expect(evaluateKnowing({ StringEquals: { 'aws:PrincipalOrgID': 'o-1' }, DateGreaterThan: { 'aws:CurrentTime': 'x' } }, { 'aws:CurrentTime': 'y' })).toEqual({ unsupported: 'DateGreaterThan' });
  });
});
