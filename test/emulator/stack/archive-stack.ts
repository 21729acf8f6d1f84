/**
 * A test stack with one stream consumer whose failed batches are kept whole on S3 (`onFailure:
 * 's3'`): the example's order projection on its own Kinesis stream and orders table, synthesized
 * and bundled as `cdk synth` would, for local mode to run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AlarmTopic, KinesisConsumer, TableAction, tableDefaults } from '../../../lib';
import { loadStack, PROJECT_ROOT, type SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { testApp } from '../../lib/support';

export const ARCHIVE_STACK_NAME = 'ArchivedOrders';

/** Retries before the mapping gives a batch up to the archive: one, to keep the test short. */
export const ARCHIVE_STACK_RETRIES = 1;

/** Synthesizes the stack (bundling its one function) into a temporary directory; `remove()` deletes it. */
export function synthesizeArchiveStack(): SynthesizedStack & { remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'eo-archive-stack-'));
  const outdir = path.join(root, 'cdk.out');
  const app = testApp({ bundle: true, outdir, assetMetadata: true });
  const stack = new Stack(app, ARCHIVE_STACK_NAME);
  const alarms = new AlarmTopic(stack, 'Alarms');
  const orders = new Table(stack, 'OrdersTable', { ...tableDefaults(), partitionKey: { name: 'pk', type: AttributeType.STRING } });
  new KinesisConsumer(stack, 'OrderProjection', {
    consumerName: 'order-projection',
    entry: path.join(PROJECT_ROOT, 'example', 'handlers', 'order-projection.ts'),
    alarmTopic: alarms.topic,
    tables: { ORDERS_TABLE: { table: orders, actions: [TableAction.PUT_ITEM] } },
    retryAttempts: ARCHIVE_STACK_RETRIES,
    onFailure: 's3',
  });
  app.synth();
  return { ...loadStack(outdir, ARCHIVE_STACK_NAME), remove: () => rmSync(root, { recursive: true, force: true }) };
}
