/**
 * `eo dlq` in AWS mode, end to end, against moto: the stack is read from CloudFormation alone
 * (the template has no outputs), every client goes to `AWS_ENDPOINT_URL` although the queue URLs
 * name AWS's host, and the CLI runs as an operator's install would (its own process, no
 * devDependency resolvable: operator-cli.ts).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createEnvelope, InvalidEnvelopeError, outgoingMessage, publishToKinesis, SchemaViolationError } from '../../../lambdas/runtime';
import { FIRST_SENT_ATTRIBUTE } from '../../../aws/first-sent';
import type { PolicyDocument } from '../../../operations/dlq';
import { describeRun, runEo, type CliRun } from './operator-cli';
import { CONSUMER, deployTestStack, depth, failThroughRuntime, motoForFile, moveBySqs, readStream, receiveEvery, REGION, sendPointer, type Original, type TestStack } from './support';

const aws = motoForFile();

function pageViewed(id: string, schemaVersion = 2): Original {
  const envelope = createEnvelope({ type: 'page.viewed', businessKey: `view:${id}`, source: 'test', payload: { schemaVersion, page: { id } }, occurredAt: '2026-11-30T12:00:00.000Z' });
  return { body: JSON.stringify(envelope), attributes: { eventId: { DataType: 'String', StringValue: envelope.eventId }, tenant: { DataType: 'String', StringValue: `tenant-${id}` } } };
}

const schemaViolation = () => new SchemaViolationError('page.viewed', ['schemaVersion: 2 is not accepted yet']);

/** `eo dlq <args> --stack <stack>` against moto; fails the test with the run's output unless it exits with `code`. */
async function eo(stack: TestStack, args: readonly string[], code = 0): Promise<CliRun> {
  const run = await runEo(['dlq', ...args, '--stack', stack.name], aws.server.env(REGION));
  if (run.code !== code) throw new Error(`eo dlq ${args.join(' ')}: expected exit ${code}\n${describeRun(run)}`);
  return run;
}

const json = <T>(run: CliRun): T => JSON.parse(run.stdout) as T;

/** Three records on the stream, a pointer to them in its DLQ; two later records after the range. */
async function streamFailure(stack: TestStack) {
  const events = ['o-1', 'o-2', 'o-3', 'o-4', 'o-5'].map((id) => createEnvelope({ type: 'order.status-changed', businessKey: id, source: 'test', payload: { orderId: id, status: 'PAID', version: 1 } }));
  await publishToKinesis(aws.clients.kinesis, stack.stream.name, events.map((event) => outgoingMessage(event, String(event.payload.orderId))));
  const published = await readStream(aws.clients.kinesis, stack.stream.name);
  await sendPointer(aws.clients.sqs, stack, published.slice(0, 3));
  return published;
}

test('dlq list shows every DLQ with its source and depth, found from CloudFormation alone', async () => {
  const stack = await deployTestStack(aws.clients);
  await failThroughRuntime(aws.clients.sqs, stack, [pageViewed('docs'), pageViewed('blog')], schemaViolation);
  await streamFailure(stack);

  const listings = json<{ name: string; visible: number; sources: { role: string; arn: string }[] }[]>(await eo(stack, ['list', '--json']));
  const byName = Object.fromEntries(listings.map((listing) => [listing.name, listing]));
  expect(Object.keys(byName).sort()).toEqual([stack.dlq.name, stack.streamDlq.name, stack.tableDlq.name].sort());
  expect(byName[stack.dlq.name]).toMatchObject({ visible: 2, sources: [{ role: 'redrive', arn: stack.sourceQueue.arn }] });
  expect(byName[stack.streamDlq.name]).toMatchObject({ visible: 1, sources: [{ role: 'on-failure', arn: stack.stream.arn }] });
  expect(byName[stack.tableDlq.name]).toMatchObject({ visible: 0, sources: [{ role: 'on-failure', arn: expect.stringMatching(/:table\/.+\/stream\//) }] });

  const table = (await eo(stack, ['list'])).stdout;
  expect(table).toContain(`Dead-letter queues of ${stack.name} (${REGION}, via ${aws.server.endpoint})`);
  expect(table).toMatch(new RegExp(`\\| ${stack.dlq.name} +\\| redrive: queue ${stack.sourceQueue.name} +\\| 2 +\\| 0 +\\| \\d+ s +\\|`));
  expect(table).toContain('2 dead-letter queue(s) hold messages');
});

test('dlq inspect groups the failures by error type and consumer, and reads a pointer\'s range back; nothing is consumed', async () => {
  const stack = await deployTestStack(aws.clients);
  await failThroughRuntime(aws.clients.sqs, stack, [pageViewed('docs'), pageViewed('blog')], schemaViolation);
  await failThroughRuntime(aws.clients.sqs, stack, [{ body: 'not json at all', attributes: {} }], () => new InvalidEnvelopeError('not-json', 'body is not JSON'));
  await streamFailure(stack);

  const inspection = json<{ total: number; groups: { kind: string; errorType: string; consumer: string; count: number; example: { source: string; original: string } }[] }>(await eo(stack, ['inspect', 'PageViewCounterDlq', '--json']));
  expect(inspection.total).toBe(3);
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([
    ['wrapper', 'SchemaViolationError', CONSUMER, 2],
    ['wrapper', 'InvalidEnvelopeError', CONSUMER, 1],
  ]);
  expect(inspection.groups[0]?.example.source).toContain(stack.sourceQueue.arn);
  const ranges = json<{ ranges: { readable: number; missing: number; status: string }[] }>(await eo(stack, ['inspect', stack.streamDlq.url, '--json'])).ranges;
  expect(ranges).toEqual([expect.objectContaining({ readable: 3, missing: 0, status: 'readable' })]);
  expect([await depth(aws.clients.sqs, stack.dlq.url), await depth(aws.clients.sqs, stack.streamDlq.url)]).toEqual([3, 1]);
  expect((await eo(stack, ['inspect', 'PageViewCounterDlq'])).stdout).toMatch(/\| SchemaViolationError +\| page-view-counter +\| wrapper +\| 2 +\| 2 +\|/);
});

test('dlq inspect labels a message SQS moved with no context whose event was applied already, from the consumer\'s dedup record', async () => {
  const stack = await deployTestStack(aws.clients);
  const [applied, pending] = [pageViewed('home'), pageViewed('pricing')];
  await moveBySqs(aws.clients.sqs, stack, [applied, pending]);
  const eventId = JSON.parse(applied.body).eventId as string;
  await aws.clients.dynamodb.send(new PutItemCommand({ TableName: stack.dedupTable, Item: { id: { S: `${CONSUMER}#${eventId}` } } }));

  const inspection = json<{ groups: { kind: string; errorType: string; count: number; applied: number }[]; alreadyApplied: unknown[]; appliedCheckProblems: string[] }>(await eo(stack, ['inspect', 'PageViewCounterDlq', '--json']));
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.count, group.applied])).toEqual([['bare', 'MovedBySqs', 2, 1]]);
  expect(inspection.alreadyApplied).toEqual([expect.objectContaining({ eventId, consumer: CONSUMER, table: stack.dedupTable, errorType: 'MovedBySqs' })]);
  expect(inspection.appliedCheckProblems).toEqual([]);
  expect((await eo(stack, ['inspect', 'PageViewCounterDlq'])).stdout).toContain(`already applied  `);
  expect(await depth(aws.clients.sqs, stack.dlq.url)).toBe(2);
});

test('dlq redrive of an SQS DLQ puts the original body and attributes back on the source queue, without the wrapper, with when the event was first sent', async () => {
  const stack = await deployTestStack(aws.clients);
  const originals = [pageViewed('docs'), pageViewed('blog')];
  await failThroughRuntime(aws.clients.sqs, stack, originals, schemaViolation);

  expect(json<{ redriven: number }>(await eo(stack, ['redrive', 'PageViewCounterDlq', '--dry-run', '--json']))).toMatchObject({ dryRun: true, redriven: 2 });
  expect([await depth(aws.clients.sqs, stack.dlq.url), await depth(aws.clients.sqs, stack.sourceQueue.url)]).toEqual([2, 0]);

  const result = json<{ redriven: number; failed: number; records: number }>(await eo(stack, ['redrive', 'PageViewCounterDlq', '--json', '--quiet']));
  expect(result).toMatchObject({ dryRun: false, redriven: 2, failed: 0, records: 2 });
  const { Messages = [] } = await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.sourceQueue.url, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }));
  const back = Messages.map((message) => ({ body: message.Body, attributes: message.MessageAttributes })).sort((a, b) => (a.body ?? '').localeCompare(b.body ?? ''));
  const firstSent = { DataType: 'String', StringValue: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/) };
  expect(back).toEqual([...originals].sort((a, b) => a.body.localeCompare(b.body)).map((original) => ({ body: original.body, attributes: { ...original.attributes, [FIRST_SENT_ATTRIBUTE]: firstSent } })));
  expect(await depth(aws.clients.sqs, stack.dlq.url)).toBe(0);
});

test('dlq redrive holds back a copy that could outlive the dedup record of the event\'s first copy: the dry run shows it, --allow-past-dedup-window redrives it', async () => {
  const stack = await deployTestStack(aws.clients);
  // A copy an earlier redrive sent (carrying when the event was first sent, 20 days ago) failed
  // again. Redriven now it could be processed for 4 more days, 1 day after the 23-day record expired.
  const firstSent = new Date(Date.now() - 20 * 86_400_000).toISOString();
  const copy = pageViewed('docs');
  const carried = { ...copy.attributes, [FIRST_SENT_ATTRIBUTE]: { DataType: 'String', StringValue: firstSent } };
  await failThroughRuntime(aws.clients.sqs, stack, [{ ...copy, attributes: carried }], schemaViolation);
  type Result = { redriven: number; pastDedupWindow: number; details: { status: string; reason?: string; note?: string }[] };

  const dryRun = json<Result>(await eo(stack, ['redrive', 'PageViewCounterDlq', '--dry-run', '--json']));
  expect(dryRun).toMatchObject({ dryRun: true, redriven: 0, pastDedupWindow: 1, uncheckedSources: [] });
  expect(dryRun.details[0]?.reason).toMatch(new RegExp(`\\(the source keeps it 4 d\\), after ${CONSUMER}'s dedup record of an earlier copy may have expired at \\S+ \\(23 d after ${firstSent.replace(/\.\d{3}Z$/, 'Z')}, when the event's first copy was sent\\)`));
  const summary = (await eo(stack, ['redrive', 'PageViewCounterDlq', '--quiet'])).stdout;
  expect(summary).toMatch(/\| past the dedup window \(left in the DLQ\) +\| 1 +\|/);
  expect(summary).toContain('run again with --allow-past-dedup-window');
  expect([await depth(aws.clients.sqs, stack.dlq.url), await depth(aws.clients.sqs, stack.sourceQueue.url)]).toEqual([1, 0]);

  const allowed = json<Result>(await eo(stack, ['redrive', 'PageViewCounterDlq', '--allow-past-dedup-window', '--json', '--quiet']));
  expect(allowed).toMatchObject({ redriven: 1, pastDedupWindow: 0 });
  expect(allowed.details[0]?.note).toMatch(/^past the dedup window, redriven on --allow-past-dedup-window/);
  const { Messages = [] } = await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.sourceQueue.url, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }));
  expect(Messages.map((message) => [message.Body, message.MessageAttributes])).toEqual([[copy.body, carried]]);
});

test('a redrive of a Kinesis on-failure pointer reads the range back and republishes it with the same data and partition keys', async () => {
  const stack = await deployTestStack(aws.clients);
  const published = await streamFailure(stack);

  const result = json<{ redriven: number; records: number; pastRetention: number }>(await eo(stack, ['redrive', 'OrderProjectionDlq', '--json', '--quiet']));
  expect(result).toMatchObject({ redriven: 1, records: 3, pastRetention: 0, failed: 0 });
  const republished = (await readStream(aws.clients.kinesis, stack.stream.name)).slice(published.length);
  const dataAndKey = (record: { Data?: Uint8Array; PartitionKey?: string }) => [Buffer.from(record.Data ?? []).toString('utf8'), record.PartitionKey];
  expect(republished.map(dataAndKey)).toEqual(published.slice(0, 3).map(dataAndKey));
  expect(await depth(aws.clients.sqs, stack.streamDlq.url)).toBe(0);
});

/** The runtime's wrappers in the DLQ, rewritten to name `arns` as their sources: what anyone who can send to the DLQ can post. */
async function forgeSources(stack: TestStack, arns: readonly string[]): Promise<void> {
  const genuine = await receiveEvery(aws.clients.sqs, stack.dlq.url, arns.length);
  for (const [index, message] of genuine.entries()) {
    const wrapper = JSON.parse(message.Body ?? '{}') as { source: { arn: string } };
    await aws.clients.sqs.send(new SendMessageCommand({ QueueUrl: stack.dlq.url, MessageBody: JSON.stringify({ ...wrapper, source: { ...wrapper.source, arn: arns[index] } }) }));
    await aws.clients.sqs.send(new DeleteMessageCommand({ QueueUrl: stack.dlq.url, ReceiptHandle: message.ReceiptHandle }));
  }
}

test('dlq redrive refuses wrappers naming a queue outside the stack, in this account or another: nothing reaches it, they stay in the DLQ, exit 1', async () => {
  const stack = await deployTestStack(aws.clients);
  const account = stack.dlq.arn.split(':')[4];
  const { QueueUrl: paymentsUrl = '' } = await aws.clients.sqs.send(new CreateQueueCommand({ QueueName: `payments-${stack.name}` }));
  const outside = [`arn:aws:sqs:${REGION}:${account}:payments-${stack.name}`, `arn:aws:sqs:${REGION}:210987654321:payments-${stack.name}`];
  await failThroughRuntime(aws.clients.sqs, stack, [pageViewed('docs'), pageViewed('blog')], schemaViolation);
  await forgeSources(stack, outside);

  const result = json<{ redriven: number; refused: number; details: { status: string; target?: string; reason?: string }[] }>(await eo(stack, ['redrive', 'PageViewCounterDlq', '--json', '--quiet'], 1));

  expect(await depth(aws.clients.sqs, paymentsUrl)).toBe(0);
  expect(result).toMatchObject({ redriven: 0, refused: 2, failed: 0 });
  expect(result.details.map((detail) => [detail.status, detail.target]).sort()).toEqual(outside.map((arn) => ['refused', arn]).sort());
  expect(result.details.every((detail) => detail.reason?.startsWith('target not a source of this DLQ: '))).toBe(true);
  expect([await depth(aws.clients.sqs, stack.dlq.url), await depth(aws.clients.sqs, stack.sourceQueue.url)]).toEqual([2, 0]);
  expect((await eo(stack, ['redrive', 'PageViewCounterDlq', '--dry-run'], 1)).stdout).toMatch(/\| refused: target not a source \(left in the DLQ\) +\| 2 +\|/);
});

test('dlq policy prints the operator\'s IAM policy for the stack: writes only to the DLQs\' sources, every resource an ARN of the stack', async () => {
  const stack = await deployTestStack(aws.clients);
  const account = stack.dlq.arn.split(':')[4];

  const policy = json<PolicyDocument>(await eo(stack, ['policy']));

  const bySid = Object.fromEntries(policy.Statement.map((statement) => [statement.Sid, statement]));
  expect(bySid.ResolveTheStack?.Resource).toEqual([`arn:aws:cloudformation:${REGION}:${account}:stack/${stack.name}/*`]);
  expect(bySid.RedriveToSourceQueues?.Resource).toEqual([stack.sourceQueue.arn]);
  expect(bySid.RedriveToSourceStreams?.Resource).toEqual([stack.stream.arn]);
  expect(bySid.RedriveToTableStreamConsumers?.Resource).toEqual([expect.stringMatching(new RegExp(`^arn:aws:lambda:${REGION}:${account}:function:`))]);
  expect(bySid.DeleteRedrivenMessages?.Resource).toEqual([stack.dlq.arn, stack.streamDlq.arn, stack.tableDlq.arn].sort());
});

test('without credentials the CLI stops with what to set, exit 2', async () => {
  const stack = await deployTestStack(aws.clients);
  // No instance metadata service to ask either: the SDK's chain would wait for one.
  const run = await runEo(['dlq', 'list', '--stack', stack.name], { AWS_ENDPOINT_URL: aws.server.endpoint, AWS_REGION: REGION, AWS_EC2_METADATA_DISABLED: 'true' });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/no AWS credentials were found\. Set AWS_PROFILE/);
});
