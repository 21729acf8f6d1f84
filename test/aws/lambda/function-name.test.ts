/** Invoke's `FunctionName` in each of the forms Lambda takes (API Reference: Invoke), and what it refuses. */
import { functionArn, parseFunctionName } from '../../../aws/lambda/function-name';

const SCOPE = { region: 'us-east-1', accountId: '000000000000' };

test.each([
  ['a name', 'orders', undefined, { name: 'orders' }],
  ['a name with an alias', 'orders:live', undefined, { name: 'orders', qualifier: 'live' }],
  ['a name and $LATEST', 'orders:$LATEST', undefined, { name: 'orders', qualifier: '$LATEST' }],
  ['a name and the Qualifier parameter', 'orders', '7', { name: 'orders', qualifier: '7' }],
  ['a name qualified twice alike', 'orders:7', '7', { name: 'orders', qualifier: '7' }],
  ['a partial ARN', '123456789012:function:orders', undefined, { name: 'orders', accountId: '123456789012' }],
  ['a full ARN with a version', 'arn:aws:lambda:eu-west-1:123456789012:function:orders:3', undefined, { name: 'orders', qualifier: '3', partition: 'aws', region: 'eu-west-1', accountId: '123456789012' }],
  ['a GovCloud ARN', 'arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:orders', undefined, { name: 'orders', partition: 'aws-us-gov', region: 'us-gov-west-1', accountId: '123456789012' }],
])('%s: %s', (_, functionName, qualifier, reference) => {
  expect(parseFunctionName(functionName, qualifier)).toEqual({ ok: true, reference: expect.objectContaining(reference) });
});

test.each([
  ['orders', 'arn:aws:lambda:us-east-1:000000000000:function:orders'],
  ['orders:live', 'arn:aws:lambda:us-east-1:000000000000:function:orders:live'],
  ['arn:aws:lambda:eu-west-1:123456789012:function:orders', 'arn:aws:lambda:eu-west-1:123456789012:function:orders'],
])('%s is the function %s', (functionName, arn) => {
  const parsed = parseFunctionName(functionName);
  if (!parsed.ok) throw new Error(parsed.message);
  expect(functionArn(parsed.reference, SCOPE)).toBe(arn);
});

test.each([
  ['a space', 'two words'],
  ['a slash', 'orders/v1'],
  ['more than 170 characters', 'f'.repeat(171)],
  ['an empty name', ''],
])('a name with %s is a ValidationException naming the value and the pattern', (_, functionName) => {
  expect(parseFunctionName(functionName)).toEqual({ ok: false, code: 'ValidationException', message: expect.stringContaining(`Value '${functionName}' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?`) });
});

test('a qualifier in the name that the Qualifier parameter contradicts is an InvalidParameterValueException', () => {
  expect(parseFunctionName('orders:live', 'prod')).toEqual({ ok: false, code: 'InvalidParameterValueException', message: 'The derived qualifier from the function name does not match the specified qualifier.' });
});
