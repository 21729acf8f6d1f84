// fauxqs alone, request by request: which SQS rules it already enforces and which only the
// contract layer does. Each row sends the request straight to fauxqs and asserts the rule's verdict.
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SendMessageBatchRequestEntry,
  type SendMessageCommandInput,
} from '@aws-sdk/client-sqs';
import { destroyClients } from '../../../emulator/engines';
import { checkRequest, splitSqsBatch, VisibilityBudget } from '../../../emulator/contract';
import { createQueue, engineClients, uniqueName } from '../../helpers/engines';

const clients = engineClients();
const { sqs } = clients;
afterAll(() => destroyClients(clients));

type Verdict = { readonly accepted: true; readonly failed: readonly string[] } | { readonly accepted: false; readonly name: string; readonly status?: number };

async function verdict(promise: Promise<object>): Promise<Verdict> {
  try {
    const { Failed = [] } = (await promise) as { Failed?: { Id?: string }[] };
    return { accepted: true, failed: Failed.map((entry) => entry.Id ?? '') };
  } catch (error) {
    const { name, $metadata } = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { accepted: false, name, status: $metadata?.httpStatusCode };
  }
}

const text = (StringValue: string) => ({ DataType: 'String', StringValue });
const attributes = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, text('v')]));
let queueUrl: string;
let smallQueueUrl: string;
let fifoQueueUrl: string;

beforeAll(async () => {
  queueUrl = (await createQueue(sqs, uniqueName('contract'))).url;
  smallQueueUrl = (await createQueue(sqs, uniqueName('contract-small'), { MaximumMessageSize: '1024' })).url;
  fifoQueueUrl = (await createQueue(sqs, `${uniqueName('contract')}.fifo`, { FifoQueue: 'true' })).url;
});

const send = (input: Partial<SendMessageCommandInput>, url = queueUrl) => verdict(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', ...input })));
const rule = (input: Partial<SendMessageCommandInput>, maximumMessageSize?: number) =>
  checkRequest('sqs', 'SendMessage', { MessageBody: 'x', ...input } as Record<string, unknown>, { sqs: { maximumMessageSize } });

describe('fauxqs accepts what SQS refuses; the rule refuses it', () => {
  test.each<[string, Partial<SendMessageCommandInput>]>([
    ['a String attribute holding a control character', { MessageAttributes: { a: text('a\u0001b') } }],
    ['a String attribute holding U+FFFF', { MessageAttributes: { a: text('\uFFFF') } }],
    ['11 message attributes', { MessageAttributes: attributes(11) }],
    ['an attribute named AWS.x', { MessageAttributes: { 'AWS.x': text('v') } }],
    ['an attribute named amazon.x', { MessageAttributes: { 'amazon.x': text('v') } }],
    ['an attribute named .x', { MessageAttributes: { '.x': text('v') } }],
    ['an attribute named x.', { MessageAttributes: { 'x.': text('v') } }],
    ['an attribute named a..b', { MessageAttributes: { 'a..b': text('v') } }],
    ['an attribute named "a b"', { MessageAttributes: { 'a b': text('v') } }],
    ['an attribute name of 256 bytes', { MessageAttributes: { ['n'.repeat(256)]: text('v') } }],
    ['DelaySeconds 901', { DelaySeconds: 901 }],
  ])('SendMessage with %s', async (_case, input) => {
    expect(await send(input)).toEqual({ accepted: true, failed: [] });
    expect(rule(input)).toMatchObject({ ok: false, error: { status: 400, code: 'InvalidParameterValue' } });
  });

  test('SendMessageBatch with an entry whose DelaySeconds is 901: fauxqs sends it, SQS fails it alone', async () => {
    const entries: SendMessageBatchRequestEntry[] = [{ Id: 'ok', MessageBody: 'x' }, { Id: 'late', MessageBody: 'x', DelaySeconds: 901 }];
    expect(await verdict(sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries })))).toEqual({ accepted: true, failed: [] });
    expect(splitSqsBatch('SendMessageBatch', { Entries: entries }).failed.map((entry) => entry.Id)).toEqual(['late']);
  });
});

describe('fauxqs keeps no 12-hour visibility cap; the gateway’s budget does', () => {
  test('ChangeMessageVisibility to 43200 s after a receive: fauxqs extends it, SQS refuses it', async () => {
    const url = (await createQueue(sqs, uniqueName('contract-visibility'))).url;
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
    const receivedAt = Date.now();
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
    const handle = Messages[0]?.ReceiptHandle ?? '';
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await verdict(sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 43_200 })))).toEqual({ accepted: true, failed: [] });
    const budget = new VisibilityBudget();
    budget.received([handle], receivedAt);
    expect(budget.check(handle, 43_200)).toMatchObject({ ok: false, error: { code: 'InvalidParameterValue', rule: 'sqs.visibility-timeout.total' } });
  });
});

describe('fauxqs already refuses these; the rule exists for the shape of AWS’s error', () => {
  test.each<[string, Partial<SendMessageCommandInput>, number | undefined]>([
    ['a body holding NUL', { MessageBody: 'a\u0000b' }, undefined],
    ['a body holding U+FFFE', { MessageBody: '\uFFFE' }, undefined],
    ['a message over the queue’s MaximumMessageSize', { MessageBody: 'x'.repeat(1_025) }, 1_024],
    ['a message over the limit only with its attribute', { MessageBody: 'x'.repeat(1_020), MessageAttributes: { a: text('v') } }, 1_024],
  ])('SendMessage with %s', async (_case, input, limit) => {
    expect(await send(input, limit === undefined ? queueUrl : smallQueueUrl)).toMatchObject({ accepted: false, status: 400 });
    expect(rule(input, limit).ok).toBe(false);
  });

  test.each<[string, SendMessageBatchRequestEntry[]]>([
    ['11 entries', Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' }))],
    ['no entries', []],
    ['a repeated id', [{ Id: 'a', MessageBody: 'x' }, { Id: 'a', MessageBody: 'y' }]],
    ['an id with a colon', [{ Id: 'a:b', MessageBody: 'x' }]],
    ['over 1 MiB in all', [{ Id: 'a', MessageBody: 'x'.repeat(600_000) }, { Id: 'b', MessageBody: 'x'.repeat(600_000) }]],
  ])('SendMessageBatch with %s', async (_case, Entries) => {
    expect(await verdict(sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries })))).toMatchObject({ accepted: false, status: 400 });
    expect(checkRequest('sqs', 'SendMessageBatch', { Entries }).ok).toBe(false);
  });

  test('SendMessageBatch entries with a control character or too long fail alone in fauxqs too', async () => {
    const Entries = [{ Id: 'ok', MessageBody: 'x' }, { Id: 'control', MessageBody: '\u0001' }, { Id: 'big', MessageBody: 'x'.repeat(1_025) }];
    expect(await verdict(sqs.send(new SendMessageBatchCommand({ QueueUrl: smallQueueUrl, Entries })))).toEqual({ accepted: true, failed: ['control', 'big'] });
    expect(splitSqsBatch('SendMessageBatch', { Entries }, { maximumMessageSize: 1_024 }).failed.map((entry) => entry.Id)).toEqual(['control', 'big']);
  });

  test.each([
    ['VisibilityTimeout 43201', { VisibilityTimeout: 43_201 }],
    ['MaxNumberOfMessages 11', { MaxNumberOfMessages: 11 }],
    ['MaxNumberOfMessages 0', { MaxNumberOfMessages: 0 }],
    ['WaitTimeSeconds 21', { WaitTimeSeconds: 21 }],
  ])('ReceiveMessage with %s', async (_case, input) => {
    expect(await verdict(sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, ...input })))).toMatchObject({ accepted: false, status: 400 });
    expect(checkRequest('sqs', 'ReceiveMessage', input).ok).toBe(false);
  });

  test('ChangeMessageVisibilityBatch with VisibilityTimeout 43201 fails the entry alone', async () => {
    const Entries = [{ Id: 'a', ReceiptHandle: 'not-a-handle', VisibilityTimeout: 43_201 }];
    expect(await verdict(sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries })))).toEqual({ accepted: true, failed: ['a'] });
    expect(splitSqsBatch('ChangeMessageVisibilityBatch', { Entries }).failed.map((entry) => entry.Id)).toEqual(['a']);
  });
});

describe('FIFO fields: what fauxqs accepts that SQS refuses, and what it refuses too', () => {
  const fifoRule = (input: Partial<SendMessageCommandInput>, fifo: boolean) => checkRequest('sqs', 'SendMessage', { MessageBody: 'x', ...input } as Record<string, unknown>, { sqs: { fifo } });

  test.each<[string, Partial<SendMessageCommandInput>, boolean]>([
    ['a deduplication id of 200 characters', { MessageGroupId: 'g', MessageDeduplicationId: 'd'.repeat(200) }, true],
    ['a deduplication id holding a space', { MessageGroupId: 'g', MessageDeduplicationId: 'a b' }, true],
    ['a group id of 200 characters', { MessageGroupId: 'g'.repeat(200), MessageDeduplicationId: 'd-200' }, true],
    ['a non-ASCII group id', { MessageGroupId: 'é', MessageDeduplicationId: 'd-e' }, true],
    ['a deduplication id on a standard queue', { MessageDeduplicationId: 'd-standard' }, false],
  ])('fauxqs accepts SendMessage with %s; the rule refuses it', async (_case, input, fifo) => {
    expect(await send(input, fifo ? fifoQueueUrl : queueUrl)).toEqual({ accepted: true, failed: [] });
    expect(fifoRule(input, fifo)).toMatchObject({ ok: false, error: { status: 400, code: 'InvalidParameterValue' } });
  });

  test('fauxqs already fails a FIFO batch entry without a group alone, as SQS does', async () => {
    const Entries: SendMessageBatchRequestEntry[] = [{ Id: 'groupless', MessageBody: 'x', MessageDeduplicationId: 'groupless' }];
    expect(await verdict(sqs.send(new SendMessageBatchCommand({ QueueUrl: fifoQueueUrl, Entries })))).toEqual({ accepted: true, failed: ['groupless'] });
    expect(splitSqsBatch('SendMessageBatch', { Entries }, { fifo: true }).failed.map((entry) => entry.Id)).toEqual(['groupless']);
  });

  test.each<[string, Partial<SendMessageCommandInput>]>([
    ['no group', { MessageDeduplicationId: 'd-no-group' }],
    ['no deduplication id', { MessageGroupId: 'g' }],
    ['a per-message delay', { MessageGroupId: 'g', MessageDeduplicationId: 'd-delay', DelaySeconds: 5 }],
  ])('fauxqs already refuses SendMessage with %s', async (_case, input) => {
    expect(await send(input, fifoQueueUrl)).toMatchObject({ accepted: false, status: 400 });
    expect(fifoRule(input, true).ok).toBe(false);
  });
});

describe('neither refuses what SQS accepts', () => {
  test.each(['tab\tand\nnewlines\r', '\uE000\uFFFD', '\uD7FF'])('a body of %j', async (MessageBody) => {
    expect(await send({ MessageBody })).toEqual({ accepted: true, failed: [] });
    expect(rule({ MessageBody }).ok).toBe(true);
  });
});

describe('fauxqs refuses what SQS accepts (the layer cannot undo an engine’s refusal)', () => {
  test('a body with a code point above U+FFFF (😀): SQS allows #x10000-#x10FFFF, fauxqs 1.9.2 does not', async () => {
    expect(await send({ MessageBody: 'emoji 😀' })).toMatchObject({ accepted: false, status: 400 });
    expect(rule({ MessageBody: 'emoji 😀' }).ok).toBe(true);
  });
});
