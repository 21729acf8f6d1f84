/**
 * The demo's publisher puts order changes on the stream in order per order id, through records
 * that Kinesis refuses, and keeps each record's sequence number for verification. The clients are
 * fakes over an `AcceptedLog` (test/helpers/fakes.ts): kinesalite refuses no record on demand.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { publishMessages, type PublishedMessage, type PublishTargets } from '../../../emulator/demo/publisher';
import { AcceptedLog, asClient, FakeClient, kinesisStreamFake } from '../../helpers/fakes';

const STREAM = 'orders';

function orderChange(orderId: string, status: string): PublishedMessage {
  const body = JSON.stringify({ orderId, status });
  return { target: STREAM, body, retry: false, event: { target: 'orders', body, partitionKey: orderId, kind: 'order-status' } };
}

function targets(kinesis: FakeClient): PublishTargets {
  return { sns: asClient<SNSClient>(new FakeClient()), sqs: asClient<SQSClient>(new FakeClient()), kinesis: asClient<KinesisClient>(kinesis), pageViewsTopicArn: 'arn:aws:sns:us-east-1:000000000000:page-views', ordersStreamName: STREAM, ledgerQueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/ledger.fifo', paymentsQueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/payments' };
}

test('an order change refused while a later one of its order would be accepted is still put first, and every record keeps its sequence number', async () => {
  const messages = [orderChange('o-1', 'created'), orderChange('o-1', 'paid'), orderChange('o-2', 'created'), orderChange('o-1', 'shipped')];
  const log = new AcceptedLog((body) => (body === messages[0]?.body ? 1 : 0));
  await publishMessages(messages, targets(kinesisStreamFake(log)), () => undefined);
  expect(log.byKey.get('o-1')).toEqual([messages[0]?.body, messages[1]?.body, messages[3]?.body]);
  expect(messages.every((message) => message.sequenceNumber !== undefined)).toBe(true);
});
