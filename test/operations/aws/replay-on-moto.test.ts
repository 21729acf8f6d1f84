/**
 * `eo replay` and `eo compare` in AWS mode, end to end, against moto, as far as moto emulates what
 * they call: the stack read from CloudFormation alone, the stream read from the window's start
 * (`ListShards`, `GetShardIterator` at `AT_TIMESTAMP`, `GetRecords`), and the tables of two
 * generations read whole (`DescribeTable`, `Scan`). Not here: a replay that invokes, since moto runs
 * a function's `Invoke` in Docker, which this machine does not have; the invoking path is tested
 * on the local engines (test/operations/replay) and in the demo.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createEnvelope, outgoingMessage, publishToKinesis } from '../../../lambdas/runtime';
import { describeRun, runEo, type CliRun } from './operator-cli';
import { deployTestStack, motoForFile, REGION } from './support';

const aws = motoForFile();

async function eo(args: readonly string[], code: number): Promise<CliRun> {
  const run = await runEo(args, aws.server.env(REGION));
  if (run.code !== code) throw new Error(`eo ${args.join(' ')}: expected exit ${code}\n${describeRun(run)}`);
  return run;
}

test('a dry run of a replay counts the window\'s records per shard from the stream alone, for either generation', async () => {
  const stack = await deployTestStack(aws.clients);
  const orders = ['o-1', 'o-2', 'o-3'].map((id) => createEnvelope({ type: 'order.status-changed', businessKey: id, source: 'test', payload: { orderId: id, status: 'PAID', version: 1 } }));
  await publishToKinesis(aws.clients.kinesis, stack.stream.name, orders.map((event) => outgoingMessage(event, String(event.payload.orderId))));

  const live = await eo(['replay', 'order-projection', '--from', '1h', '--dry-run', '--stack', stack.name], 0);
  expect(live.stdout).toContain(`dry run: replay of order-projection (function ${stack.physicalIds.OrderProjectionFunction})`);
  expect(live.stdout).toContain('shardId-000000000000: 3 record(s) in the window');
  const rebuilt = await eo(['replay', 'order-projection', '--generation', '2', '--from', '1h', '--dry-run', '--stack', stack.name, '--json'], 0);
  expect(JSON.parse(rebuilt.stdout)).toMatchObject({ dryRun: true, plan: { consumer: { consumer: 'order-projection@g2', functionName: stack.physicalIds.OrderProjectionRebuildFunction } }, shards: [{ inWindow: 3 }] });
  // The queue consumer is refused, before anything is read.
  const refused = await eo(['replay', 'page-view-counter', '--from', '1h', '--stack', stack.name], 2);
  expect(refused.stderr).toMatch(/reads a queue .*, and a queue keeps no history/);
});

test('the compare reads both generations\' tables and prints what differs, exit 1; the same, exit 0', async () => {
  const stack = await deployTestStack(aws.clients);
  const put = (table: string, item: Record<string, unknown>) => aws.clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall(item) }));
  const [live, rebuilt] = [stack.physicalIds.OrdersTable ?? '', stack.physicalIds.RebuiltOrdersTable ?? ''];
  await Promise.all([put(live, { pk: 'order#o-1', status: 'PAID', version: 2 }), put(rebuilt, { pk: 'order#o-1', status: 'SHIPPED', version: 3 })]);

  const differs = await eo(['compare', 'order-projection', '--generation', '2', '--stack', stack.name], 1);
  expect(differs.stdout).toContain(`ORDERS_TABLE: ${live} (1 items) against ${rebuilt} (1 items): 0 equal, 1 differing`);
  expect(differs.stdout).toContain('differs pk=order#o-1:\n      status "PAID" (generation 1), "SHIPPED" (generation 2)\n      version 2 (generation 1), 3 (generation 2)');

  await put(live, { pk: 'order#o-1', status: 'SHIPPED', version: 3 });
  const same = await eo(['compare', 'order-projection', '--generation', '2', '--stack', stack.name, '--json'], 0);
  expect(JSON.parse(same.stdout)).toMatchObject({ consumer: 'order-projection', live: 1, next: 2, tables: [{ variable: 'ORDERS_TABLE', same: true, equal: 1 }] });
  // What the stack does not have is refused.
  expect((await eo(['compare', 'order-projection', '--generation', '3', '--stack', stack.name], 2)).stderr).toContain('order-projection has no generation 3 (its generations: 1, 2)');
});
