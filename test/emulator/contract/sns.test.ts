import { checkRequest, snsMessageBytes, snsPublishFromForm, SNS_LIMITS, type AwsError, type CheckResult } from '../../../emulator/contract';

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const publish = (input: Record<string, unknown>, maximumMessageSize?: number) =>
  checkRequest('sns', 'Publish', { TopicArn: 't', Message: 'm', ...input }, { sns: { maximumMessageSize } });
const text = (StringValue: string, DataType = 'String') => ({ DataType, StringValue });

describe('SNS message', () => {
  test('refuses an empty message', () => {
    expect(refusal(publish({ Message: '' }))).toMatchObject({ code: 'InvalidParameter', message: 'Invalid parameter: Empty message', jsonType: 'com.amazonaws.sns#InvalidParameter' });
  });

  test.each([
    [SNS_LIMITS.defaultMaxMessageBytes, undefined, true],
    [SNS_LIMITS.defaultMaxMessageBytes + 1, undefined, false],
    [1_048_576, 1_048_576, true],
    [1_048_577, 1_048_576, false],
  ])('%i bytes against a topic limit of %s: accepted %s', (bytes, limit, accepted) => {
    const result = publish({ Message: 'x'.repeat(bytes) }, limit);
    expect(result.ok).toBe(accepted);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'InvalidParameter', message: 'Invalid parameter: Message too long' });
  });

  test('counts the attributes’ names, types and values in the size', () => {
    const input = { Message: 'x'.repeat(SNS_LIMITS.defaultMaxMessageBytes - 8), MessageAttributes: { k: text('v') } };
    expect(snsMessageBytes(input)).toBe(SNS_LIMITS.defaultMaxMessageBytes);
    expect(publish(input).ok).toBe(true);
    expect(publish({ ...input, MessageAttributes: { k: text('vv') } }).ok).toBe(false);
  });
});

describe('SNS subject', () => {
  test.each(['s', 's'.repeat(99), 'Ünïcode ok'])('accepts %j', (Subject) => {
    expect(publish({ Subject }).ok).toBe(true);
  });

  test.each(['', 's'.repeat(100), 'two\nlines', 'carriage\rreturn', 'bell\u0007', 'del\u007F'])('refuses %j', (Subject) => {
    expect(refusal(publish({ Subject }))).toMatchObject({ code: 'InvalidParameter', message: 'Invalid parameter: Subject', rule: 'sns.subject' });
  });
});

describe('SNS message attributes', () => {
  test('has no limit on the count at Publish', () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, text('v')]));
    expect(publish({ MessageAttributes: many }).ok).toBe(true);
  });

  test.each(['a', 'a.b', 'A-b_9', 'n'.repeat(255)])('accepts the name %j', (name) => {
    expect(publish({ MessageAttributes: { [name]: text('v') } }).ok).toBe(true);
  });

  test.each([
    ['n'.repeat(256), 'Length of message attribute name must be less than 256 bytes.'],
    ['.a', "Invalid message attribute name starting with character '.' was found."],
    ['a.', "Invalid message attribute name ending with character '.' was found."],
    ['a^b', "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots."],
    ['a..b', "Message attribute name can not have successive '.' character."],
    ['AWS.x', "names beginning with 'AWS.' or 'Amazon.' are reserved"],
  ])('refuses the name %j', (name, message) => {
    const error = refusal(publish({ MessageAttributes: { [name]: text('v') } }));
    expect(error.code).toBe('ParameterValueInvalid');
    expect(error.message).toContain(message);
  });

  test.each([
    [text('v', 'Foo'), "The message attribute 'a' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."],
    [text('', 'String'), "The message attribute 'a' must contain non-empty message attribute value for message attribute type 'String'."],
    [{ DataType: 'Binary', StringValue: 'v' }, "The message attribute 'a' with type 'Binary' must use field 'Binary'."],
    [{ DataType: 'String', BinaryValue: 'AQ==' }, "The message attribute 'a' with type 'String' must use field 'String'."],
    [text('abc', 'Number'), "Could not cast message attribute 'a' value to number."],
  ])('refuses %j', (value, message) => {
    expect(refusal(publish({ MessageAttributes: { a: value } }))).toMatchObject({ code: 'ParameterValueInvalid', message });
  });

  test.each([text('1.5', 'Number'), text('["a"]', 'String.Array'), { DataType: 'Binary', BinaryValue: 'AQ==' }])('accepts %j', (value) => {
    expect(publish({ MessageAttributes: { a: value } }).ok).toBe(true);
  });
});

describe('snsPublishFromForm', () => {
  test('reads a query-protocol Publish as the SDK sends it', () => {
    const form = new URLSearchParams({
      Action: 'Publish',
      TopicArn: 'arn:aws:sns:us-east-1:000000000000:t',
      Message: 'hello',
      Subject: 'hi',
      'MessageAttributes.entry.1.Name': 'kind',
      'MessageAttributes.entry.1.Value.DataType': 'String',
      'MessageAttributes.entry.1.Value.StringValue': 'alarm',
      'MessageAttributes.entry.2.Name': 'blob',
      'MessageAttributes.entry.2.Value.DataType': 'Binary',
      'MessageAttributes.entry.2.Value.BinaryValue': 'AQI=',
    });

    expect(snsPublishFromForm(form)).toEqual({
      Action: 'Publish',
      Message: 'hello',
      Subject: 'hi',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'alarm' }, blob: { DataType: 'Binary', BinaryValue: 'AQI=' } },
    });
  });
});
