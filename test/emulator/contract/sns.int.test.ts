// fauxqs's SNS alone: which Publish rules it already enforces and which only the contract layer does.
import { CreateTopicCommand, PublishCommand, type MessageAttributeValue, type PublishCommandInput } from '@aws-sdk/client-sns';
import { destroyClients } from '../../../emulator/engines';
import { checkRequest, SNS_LIMITS } from '../../../emulator/contract';
import { engineClients, uniqueName } from '../../helpers/engines';

const clients = engineClients();
const { sns } = clients;
afterAll(() => destroyClients(clients));

let topicArn: string;
beforeAll(async () => {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: uniqueName('contract') }));
  topicArn = TopicArn ?? '';
});

async function accepted(input: Partial<PublishCommandInput>): Promise<boolean> {
  try {
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'm', ...input }));
    return true;
  } catch {
    return false;
  }
}

const rule = (input: Partial<PublishCommandInput>) => checkRequest('sns', 'Publish', { Message: 'm', ...input } as Record<string, unknown>);
const text = (StringValue: string, DataType = 'String'): MessageAttributeValue => ({ DataType, StringValue });

describe('fauxqs accepts what SNS refuses; the rule refuses it', () => {
  test.each<[string, Partial<PublishCommandInput>]>([
    ['a message at the limit plus an attribute', { Message: 'x'.repeat(SNS_LIMITS.defaultMaxMessageBytes - 4), MessageAttributes: { a: text('v') } }],
    ['an attribute named .x', { MessageAttributes: { '.x': text('v') } }],
    ['an attribute named x.', { MessageAttributes: { 'x.': text('v') } }],
    ['an attribute named a..b', { MessageAttributes: { 'a..b': text('v') } }],
    ['an attribute named a^b', { MessageAttributes: { 'a^b': text('v') } }],
    ['an attribute named AWS.x', { MessageAttributes: { 'AWS.x': text('v') } }],
    ['an attribute name of 256 bytes', { MessageAttributes: { ['n'.repeat(256)]: text('v') } }],
    ['an attribute of type Foo', { MessageAttributes: { a: text('v', 'Foo') } }],
    ['a Number attribute of "abc"', { MessageAttributes: { a: text('abc', 'Number') } }],
    ['an empty String attribute', { MessageAttributes: { a: text('') } }],
    ['a subject with a line break', { Subject: 'two\nlines' }],
    ['a subject with a control character', { Subject: 'bell\u0007' }],
    ['a subject of 100 characters', { Subject: 's'.repeat(100) }],
    ['an empty subject', { Subject: '' }],
  ])('Publish with %s', async (_case, input) => {
    expect(await accepted(input)).toBe(true);
    expect(rule(input)).toMatchObject({ ok: false, error: { status: 400 } });
  });
});

describe('fauxqs already refuses these', () => {
  test('a message body over 256 KiB', async () => {
    const input = { Message: 'x'.repeat(SNS_LIMITS.defaultMaxMessageBytes + 1) };
    expect(await accepted(input)).toBe(false);
    expect(rule(input).ok).toBe(false);
  });
});

describe('neither refuses what SNS accepts', () => {
  test.each<[string, Partial<PublishCommandInput>]>([
    ['11 attributes (SNS has no count limit at Publish)', { MessageAttributes: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, text('v')])) }],
    ['a subject of 99 characters', { Subject: 's'.repeat(99) }],
    ['a String.Array attribute', { MessageAttributes: { a: text('["x", 1]', 'String.Array') } }],
  ])('Publish with %s', async (_case, input) => {
    expect(await accepted(input)).toBe(true);
    expect(rule(input).ok).toBe(true);
  });
});
