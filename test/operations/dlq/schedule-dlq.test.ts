/**
 * A schedule's dead-letter queue (EventBridge Scheduler's `Target.DeadLetterConfig`, as
 * `SqlEffectDatabase`'s expiry has one) is a DLQ of the stack with the schedule as its source, and
 * the dead-letter events in it read as failed target calls, grouped by their `ERROR_CODE` and never
 * redriven (operations/dlq/schedule-dlqs.ts, entry.ts).
 */
import type { Message } from '@aws-sdk/client-sqs';
import type { Template } from '../../../aws/cloudformation/template';
import { dlqLinks } from '../../../operations/dlq/dlq-links';
import { entryOf, EntryKind } from '../../../operations/dlq/entry';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:Stack-ExpiryDlq';
const SCHEDULE_ARN = 'arn:aws:scheduler:eu-west-1:123456789012:schedule/default/Stack-Expiry';

function template(withDlq: boolean): Template {
  return {
    Resources: {
      ExpiryDlq: { Type: 'AWS::SQS::Queue', Properties: {} },
      Expiry: {
        Type: 'AWS::Scheduler::Schedule',
        Properties: { ScheduleExpression: 'rate(1 hour)', Target: { Arn: 'arn:aws:scheduler:::aws-sdk:rdsdata:executeStatement', RoleArn: 'role', ...(withDlq && { DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['ExpiryDlq', 'Arn'] } } }) } },
      },
    },
  } as unknown as Template;
}

/** Resolves the queue's and the schedule's ARNs; `scheduleResolves: false` as for a deployed stack read without a describe of the schedule. */
function resolver(scheduleResolves: boolean) {
  return (value: unknown): string | undefined => {
    const getAtt = (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
    if (getAtt?.[0] === 'ExpiryDlq') return QUEUE_ARN;
    if (getAtt?.[0] === 'Expiry') return scheduleResolves ? SCHEDULE_ARN : undefined;
    return typeof value === 'string' ? value : undefined;
  };
}

const queue = { arn: QUEUE_ARN, url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Stack-ExpiryDlq' };

test("a schedule's dead-letter queue is a DLQ of the stack, its source the schedule (its logical id where the ARN does not resolve)", () => {
  expect(dlqLinks([queue], template(true), resolver(true))).toEqual([{ queue, source: { role: 'schedule', arn: SCHEDULE_ARN } }]);
  expect(dlqLinks([queue], template(true), resolver(false))).toEqual([{ queue, source: { role: 'schedule', arn: 'Expiry' } }]);
  expect(dlqLinks([queue], template(false), resolver(true))).toEqual([]);
});

test('a dead-letter event of the schedule reads as a failed target call, grouped under its error code', () => {
  const message: Message = {
    MessageId: 'm-1',
    Body: '{"ResourceArn":"arn:aws:rds:eu-west-1:123456789012:cluster:effects","Sql":"DELETE FROM eo_dedup WHERE expires_at < now()"}',
    Attributes: { SentTimestamp: '1764580000000' },
    MessageAttributes: {
      ERROR_CODE: { DataType: 'String', StringValue: 'DatabaseErrorException' },
      ERROR_MESSAGE: { DataType: 'String', StringValue: 'ERROR: relation "eo_dedup" does not exist; SQLState: 42P01' },
      SCHEDULE_ARN: { DataType: 'String', StringValue: SCHEDULE_ARN },
    },
  };
  expect(entryOf(message)).toMatchObject({ kind: EntryKind.TARGET_FAILURE, errorType: 'DatabaseErrorException', errorMessage: expect.stringContaining('42P01'), schedule: SCHEDULE_ARN, firstSeen: '2025-12-01T09:06:40.000Z' });
  const bare = entryOf({ ...message, MessageAttributes: {} });
  expect(bare.kind).toBe(EntryKind.BARE);
});
