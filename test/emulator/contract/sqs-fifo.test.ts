/** SQS's FIFO rules for a message (emulator/contract/sqs-fifo.ts), alone and as batch entries. */
import { checkRequest, splitSqsBatch, type AwsError, type CheckResult } from '../../../emulator/contract';

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const FIFO = { fifo: true } as const;
const send = (input: Record<string, unknown>, facts: { fifo?: boolean; contentBasedDeduplication?: boolean } = FIFO): CheckResult =>
  checkRequest('sqs', 'SendMessage', { QueueUrl: 'q.fifo', MessageBody: 'hello', ...input }, { sqs: facts });

describe('a FIFO queue', () => {
  test('takes a message with a group and a deduplication id of up to 128 printable characters', () => {
    expect(send({ MessageGroupId: 'account-1', MessageDeduplicationId: 'a'.repeat(128) }).ok).toBe(true);
    expect(send({ MessageGroupId: '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~', MessageDeduplicationId: 'x' }).ok).toBe(true);
  });

  test('refuses a message without a group, as MissingParameter', () => {
    expect(refusal(send({ MessageDeduplicationId: 'd' }))).toMatchObject({ rule: 'sqs.fifo.message-group-id.missing', code: 'MissingParameter', status: 400, message: 'The request must contain the parameter MessageGroupId.' });
  });

  test('refuses a message without a deduplication id, unless the queue deduplicates by content', () => {
    expect(refusal(send({ MessageGroupId: 'g' }))).toMatchObject({
      rule: 'sqs.fifo.message-deduplication-id.missing',
      code: 'InvalidParameterValue',
      message: 'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    });
    expect(send({ MessageGroupId: 'g' }, { fifo: true, contentBasedDeduplication: true }).ok).toBe(true);
  });

  test.each([
    ['MessageGroupId', { MessageGroupId: 'g'.repeat(129), MessageDeduplicationId: 'd' }, 'g'.repeat(129)],
    ['MessageGroupId', { MessageGroupId: 'a b', MessageDeduplicationId: 'd' }, 'a b'],
    ['MessageDeduplicationId', { MessageGroupId: 'g', MessageDeduplicationId: 'é' }, 'é'],
    ['MessageDeduplicationId', { MessageGroupId: 'g', MessageDeduplicationId: '' }, ''],
  ])('refuses a %s that is not 1..128 alphanumeric and punctuation characters', (parameter, input, value) => {
    expect(refusal(send(input))).toMatchObject({
      rule: 'sqs.fifo.ids.characters',
      code: 'InvalidParameterValue',
      message: `Value ${value} for parameter ${parameter} is invalid. Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
    });
  });

  test('refuses a per-message delay', () => {
    expect(refusal(send({ MessageGroupId: 'g', MessageDeduplicationId: 'd', DelaySeconds: 5 }))).toMatchObject({ rule: 'sqs.fifo.delay-seconds', message: 'Value 5 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.' });
  });

  test('a batch entry without a group fails alone', () => {
    const Entries = [{ Id: 'ok', MessageBody: 'x', MessageGroupId: 'g', MessageDeduplicationId: 'd1' }, { Id: 'groupless', MessageBody: 'x', MessageDeduplicationId: 'd2' }];
    const { forward, failed } = splitSqsBatch('SendMessageBatch', { Entries }, FIFO);
    expect(forward.map((entry) => entry.Id)).toEqual(['ok']);
    expect(failed).toEqual([expect.objectContaining({ Id: 'groupless', Code: 'MissingParameter', SenderFault: true })]);
  });
});

describe('a standard queue', () => {
  test('refuses a deduplication id, and takes a message group (fair queues)', () => {
    expect(refusal(send({ MessageDeduplicationId: 'd-1' }, {}))).toMatchObject({
      rule: 'sqs.fifo.message-deduplication-id.standard-queue',
      message: 'Value d-1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.',
    });
    expect(send({ MessageGroupId: 'tenant-1' }, {}).ok).toBe(true);
  });

  test.each([['g'.repeat(129)], ['acme corp'], ['']])('refuses a tenant id SQS cannot take: %p', (group) => {
    expect(refusal(send({ MessageGroupId: group }, {}))).toMatchObject({ rule: 'sqs.fifo.ids.characters', code: 'InvalidParameterValue' });
  });
});
