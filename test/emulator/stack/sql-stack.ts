/**
 * A test stack with a SQL database: `SqlEffectDatabase` and a `QueueConsumer` connected to it, and
 * a second consumer given the same variables by hand but no grant, synthesized and bundled as
 * `cdk synth` would, for local mode to run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import { AlarmTopic, QueueConsumer, SqlEffectDatabase } from '../../../lib';
import { SQL_ENV } from '../../../aws/consumer-env';
import { loadStack, type SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { testApp } from '../../lib/support';

export const SQL_STACK_NAME = 'SqlLedger';

/** The database the construct makes, as the test names it. */
export const SQL_STACK_DATABASE = 'ledger';

/** The schedule's interval: its shortest, 5 minutes, which local time compresses to 5 s. */
export const SQL_STACK_EXPIRY = Duration.minutes(5);

/** Synthesizes the stack (bundling its functions) into a temporary directory; `remove()` deletes it. */
export function synthesizeSqlStack(): SynthesizedStack & { remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'eo-sql-stack-'));
  const outdir = path.join(root, 'cdk.out');
  const app = testApp({ bundle: true, outdir, assetMetadata: true });
  const stack = new Stack(app, SQL_STACK_NAME);
  const alarmTopic = new AlarmTopic(stack, 'Alarms').topic;
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic, databaseName: SQL_STACK_DATABASE, expiryInterval: SQL_STACK_EXPIRY });
  const entry = path.join(__dirname, 'sql-ledger-handler.ts');
  const ledger = new QueueConsumer(stack, 'Ledger', { consumerName: 'ledger', entry, alarmTopic });
  database.connect(ledger.function);
  const stranger = new QueueConsumer(stack, 'Stranger', { consumerName: 'stranger', entry, alarmTopic });
  stranger.function.addEnvironment(SQL_ENV.resourceArn, database.clusterArn);
  stranger.function.addEnvironment(SQL_ENV.secretArn, database.secretArn);
  stranger.function.addEnvironment(SQL_ENV.database, database.databaseName);
  stranger.function.addEnvironment(SQL_ENV.dedupTable, database.dedupTable);
  app.synth();
  return { ...loadStack(outdir, SQL_STACK_NAME), remove: () => rmSync(root, { recursive: true, force: true }) };
}
