import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { QueueConsumer } from '../../lib';
import { FIXTURE_HANDLER, testApp } from './support';

// The one test that runs esbuild: every other test skips bundling to stay fast.
describe('consumer bundling', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bundling-'));
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  test('bundles the handler into a minified asset with a source map', async () => {
    const app = testApp({ bundle: true, outdir });
    const stack = new Stack(app, 'Bundled');
    new QueueConsumer(stack, 'Counter', {
      consumerName: 'counter',
      entry: FIXTURE_HANDLER,
      alarmTopic: new Topic(stack, 'Alarms'),
    });
    app.synth();

    const assets = fs.readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    const bundle = path.join(outdir, assets[0], 'index.js');
    expect(fs.readdirSync(path.dirname(bundle)).sort()).toEqual(['index.js', 'index.js.map']);
    expect(fs.readFileSync(bundle, 'utf8')).toContain('batchItemFailures');

    const { handler } = (await import(bundle)) as { handler: () => Promise<unknown> };
    await expect(handler()).resolves.toEqual({ batchItemFailures: [] });
  });
});
