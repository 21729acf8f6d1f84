import { checkRequest, SQS_LIMITS, sqsMessageBytes, type AwsError, type CheckResult } from '../../../emulator/contract';

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const send = (input: Record<string, unknown>, maximumMessageSize?: number): CheckResult =>
  checkRequest('sqs', 'SendMessage', { QueueUrl: 'q', MessageBody: 'hello', ...input }, { sqs: { maximumMessageSize } });
const text = (value: string) => ({ DataType: 'String', StringValue: value });
const attributes = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, text('v')]));

describe('SQS message body', () => {
  test.each(['plain', 'tab\tnew\nline\r', '\uD7FF\uE000\uFFFD', '😀 \u{10FFFF}'])('accepts %j', (body) => {
    expect(send({ MessageBody: body }).ok).toBe(true);
  });

  test.each([
    ['\u0000', '#x0'],
    ['a\u0007b', '#x7'],
    ['\u000B', '#xB'],
    ['\uFFFE', '#xFFFE'],
    ['\uFFFF', '#xFFFF'],
    ['lone \uD800 surrogate', '#xD800'],
  ])('refuses %j with InvalidMessageContents naming %s', (body, character) => {
    const error = refusal(send({ MessageBody: body }));
    expect(error).toMatchObject({ code: 'InvalidMessageContents', status: 400, rule: 'sqs.message-body.characters', queryErrorHeader: 'InvalidMessageContents;Sender' });
    expect(error.message).toContain(`'${character}'`);
  });

  test.each([[''], [undefined]])('refuses a missing body (%j) with MissingParameter', (body) => {
    expect(refusal(send({ MessageBody: body }))).toMatchObject({ code: 'MissingParameter', message: 'The request must contain the parameter MessageBody.' });
  });
});

describe('SQS message attributes', () => {
  test.each([0, 1, SQS_LIMITS.maxAttributes])('accepts %i attributes', (count) => {
    expect(send({ MessageAttributes: attributes(count) }).ok).toBe(true);
  });

  test.each([SQS_LIMITS.maxAttributes + 1, 20])('refuses %i attributes', (count) => {
    expect(refusal(send({ MessageAttributes: attributes(count) }))).toMatchObject({
      code: 'InvalidParameterValue',
      message: `Number of message attributes [${count}] exceeds the allowed maximum [10].`,
      jsonType: 'com.amazonaws.sqs#InvalidParameterValueException',
      queryErrorHeader: 'InvalidParameterValue;Sender',
    });
  });

  test.each(['a', 'Foo_Bar-1.2', 'trace.id', 'AWSfoo', 'amazonfoo', 'aws-x', 'attr.1øßä', 'n'.repeat(255)])('accepts the name %j', (name) => {
    expect(send({ MessageAttributes: { [name]: text('v') } }).ok).toBe(true);
  });

  test.each([
    ['AWS.trace', 'reserved'],
    ['aws.trace', 'reserved'],
    ['AmAzOn.trace', 'reserved'],
    ['.trace', 'start or end'],
    ['trace.', 'start or end'],
    ['trace..id', "successive '.'"],
    ['trace id', 'can only contain'],
    ['trace:id', 'can only contain'],
    ['', 'can only contain'],
    ['n'.repeat(256), 'shorter than 256'],
  ])('refuses the name %j (%s)', (name, words) => {
    const error = refusal(send({ MessageAttributes: { [name]: text('v') } }));
    expect(error).toMatchObject({ code: 'InvalidParameterValue', rule: 'sqs.message-attributes.name' });
    expect(error.message).toContain(words);
  });

  test.each([
    ['String', 'v'],
    ['String.json', '{}'],
    ['Number', '-1.5e3'],
    ['Number.int', '42'],
  ])('accepts the data type %s with %j', (DataType, StringValue) => {
    expect(send({ MessageAttributes: { a: { DataType, StringValue } } }).ok).toBe(true);
  });

  test('accepts a Binary value, counted in decoded bytes', () => {
    const input = { MessageBody: 'x', MessageAttributes: { b: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]).toString('base64') } } };
    expect(send(input).ok).toBe(true);
    expect(sqsMessageBytes(input)).toBe(1 + 1 + 'Binary'.length + 3);
  });

  test.each([
    [{ DataType: 'string', StringValue: 'v' }, 'must be prefixed with'],
    [{ DataType: '', StringValue: 'v' }, 'Missing required parameter DataType'],
    [{ DataType: `String.${'l'.repeat(249)}`, StringValue: 'v' }, 'types must be shorter than 256 Bytes'],
    [{ DataType: 'String', StringValue: '' }, "must contain a non-empty value of type 'String'"],
    [{ DataType: 'Number', StringValue: 'abc' }, "Can't cast the value of message (user) attribute 'a' to a number."],
    [{ DataType: 'String', StringValue: 'bad\u0001' }, "'#x1'"],
    [{ DataType: 'String', StringValue: '\uFFFF' }, "'#xFFFF'"],
  ])('refuses %j (%s)', (value, words) => {
    const error = refusal(send({ MessageAttributes: { a: value } }));
    expect(error.code).toBe('InvalidParameterValue');
    expect(error.message).toContain(words);
  });
});

describe('SQS message size against the queue', () => {
  const withAttribute = (bodyBytes: number) => ({ MessageBody: 'x'.repeat(bodyBytes), MessageAttributes: { k: text('v') } });
  const attributeBytes = 'k'.length + 'String'.length + 'v'.length;

  test.each([
    [1_024, 1_024 - attributeBytes, true],
    [1_024, 1_024 - attributeBytes + 1, false],
    [SQS_LIMITS.maxMessageBytes, SQS_LIMITS.maxMessageBytes - attributeBytes, true],
    [SQS_LIMITS.maxMessageBytes, SQS_LIMITS.maxMessageBytes - attributeBytes + 1, false],
  ])('queue limit %i, body %i bytes + one attribute: accepted %s', (limit, body, accepted) => {
    expect(send(withAttribute(body), limit).ok).toBe(accepted);
  });

  test('counts UTF-8 bytes, not characters', () => {
    expect(send({ MessageBody: 'é'.repeat(512) }, 1_024).ok).toBe(true);
    expect(refusal(send({ MessageBody: 'é'.repeat(513) }, 1_024))).toMatchObject({
      code: 'InvalidParameterValue',
      message: 'One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.',
    });
  });

  test('defaults to SQS’s 1 MiB when the queue’s limit is not given', () => {
    expect(send({ MessageBody: 'x'.repeat(SQS_LIMITS.maxMessageBytes) }).ok).toBe(true);
    expect(send({ MessageBody: 'x'.repeat(SQS_LIMITS.maxMessageBytes + 1) }).ok).toBe(false);
  });
});

describe('SQS DelaySeconds', () => {
  test.each([0, 1, 900])('accepts %i', (DelaySeconds) => {
    expect(send({ DelaySeconds }).ok).toBe(true);
  });

  test.each([-1, 901])('refuses %i', (DelaySeconds) => {
    expect(refusal(send({ DelaySeconds }))).toMatchObject({
      message: `Value ${DelaySeconds} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.`,
    });
  });
});

describe('SQS receive and visibility ranges', () => {
  const receive = (input: Record<string, unknown>) => checkRequest('sqs', 'ReceiveMessage', { QueueUrl: 'q', ...input });

  test.each([1, 10])('MaxNumberOfMessages %i is accepted', (MaxNumberOfMessages) => {
    expect(receive({ MaxNumberOfMessages }).ok).toBe(true);
  });

  test.each([0, 11])('MaxNumberOfMessages %i is refused', (MaxNumberOfMessages) => {
    expect(refusal(receive({ MaxNumberOfMessages })).message).toBe(
      `Value ${MaxNumberOfMessages} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.`,
    );
  });

  test.each([[0, true], [20, true], [-1, false], [21, false]])('WaitTimeSeconds %i: accepted %s', (WaitTimeSeconds, accepted) => {
    expect(receive({ WaitTimeSeconds }).ok).toBe(accepted);
  });

  test.each([
    ['ReceiveMessage', 0, true],
    ['ReceiveMessage', 43_200, true],
    ['ReceiveMessage', 43_201, false],
    ['ReceiveMessage', -1, false],
    ['ChangeMessageVisibility', 0, true],
    ['ChangeMessageVisibility', 43_200, true],
    ['ChangeMessageVisibility', 43_201, false],
  ])('%s VisibilityTimeout %i: accepted %s', (operation, VisibilityTimeout, accepted) => {
    const result = checkRequest('sqs', operation, { QueueUrl: 'q', ReceiptHandle: 'h', VisibilityTimeout });
    expect(result.ok).toBe(accepted);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'InvalidParameterValue', rule: 'sqs.visibility-timeout' });
  });
});

describe('SQS GetQueueAttributes attribute names', () => {
  const get = (names?: unknown[]): CheckResult => checkRequest('sqs', 'GetQueueAttributes', { QueueUrl: 'q', ...(names && { AttributeNames: names }) });

  test.each([[undefined], [['All']], [['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'QueueArn', 'RedrivePolicy']]])('accepts %j', (names) => {
    expect(get(names).ok).toBe(true);
  });

  test.each([
    [['ApproximateAgeOfOldestMessage'], 'ApproximateAgeOfOldestMessage'],
    [['QueueArn', 'LocalOldestMessageSentTimestamp'], 'LocalOldestMessageSentTimestamp'],
    [['ApproximateNumberOfMessagesVisible'], 'ApproximateNumberOfMessagesVisible'],
  ])('refuses %j with InvalidAttributeName naming %s', (names, unknown) => {
    expect(refusal(get(names))).toMatchObject({ code: 'InvalidAttributeName', status: 400, rule: 'sqs.get-queue-attributes.attribute-name', message: `Unknown Attribute ${unknown}.`, jsonType: 'com.amazonaws.sqs#InvalidAttributeName' });
  });
});
