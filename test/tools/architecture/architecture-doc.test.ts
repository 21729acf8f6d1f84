import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import { EventPipelineStack, type AddConsumer } from '../../../example';
import { QueueConsumer } from '../../../lib';
import { ARCHITECTURE_DOC, renderArchitecture } from '../../../tools/architecture/document';
import { LAYOUT, layoutTable, RUNTIME_ROOMS } from '../../../tools/architecture/layout';
import { renderMermaid } from '../../../tools/architecture/mermaid';
import { pipelineModel } from '../../../tools/architecture/model';
import { synthesizeInProcess } from '../../../tools/architecture/synth';
import type { Template } from '../../../aws/cloudformation/template';
import { FIXTURE_HANDLER, testApp } from '../../lib/support';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const template = synthesizeInProcess();
const page = renderArchitecture(template);

/** The first line where two texts differ, to say what is stale without a page-long diff. */
function firstDifference(expected: string, actual: string): string {
  const [a, b] = [expected.split('\n'), actual.split('\n')];
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line < 0 ? a.length : line;
  return `line ${at + 1}: expected ${JSON.stringify(a[at] ?? '(end of file)')}, found ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

describe(ARCHITECTURE_DOC, () => {
  test('is what `npm run docs` writes for the current stack', () => {
    const committed = readFileSync(path.join(ROOT, ARCHITECTURE_DOC), 'utf8');
    if (committed !== page) {
      throw new Error(`${ARCHITECTURE_DOC} is stale: run \`npm run docs\` and commit it (${firstDifference(page, committed)})`);
    }
  });

  test('is deterministic: no timestamps, no asset hashes, the same twice', () => {
    expect(renderArchitecture(synthesizeInProcess())).toBe(page);
    expect(page).not.toMatch(/[0-9a-f]{64}/);
    expect(page).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
  });

  test('has a row per event source mapping with its source, batch size, retries, DLQ and alarms', () => {
    const rows = page.split('\n').filter((line) => /^\| `[a-z]/.test(line) && line.includes('Lambda') === false && /\| (SQS|Kinesis|DynamoDB stream)/.test(line));
    expect(rows).toHaveLength(Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping').length);
    expect(page).toContain('| `page-view-counter` | SQS queue `PageViewCounter/Queue` | 100 | 1 s | maxReceiveCount 6; the function dead-letters with context at receive 5 |');
    expect(page).toContain('| `order-projection` | Kinesis stream `OrderProjection/Stream` | 100 | none | 3 retries, bisect on error, records older than 1 hour skipped |');
    expect(page).toContain('| `shipment-notifier` | DynamoDB stream of `OrdersTable` | 100 | none |');
    for (const row of rows) expect(row).toMatch(/DLQ messages held > 0/);
  });
});

describe('the Mermaid diagram', () => {
  const diagram = renderMermaid(pipelineModel(template));
  const lines = diagram.split('\n').slice(1).map((line) => line.trim());

  test('uses simple node ids and quotes every label, so that GitHub renders it', () => {
    const nodeLine = /^[A-Za-z0-9]+(\[\/"[^"]*"\/\]|\[\["[^"]*"\]\]|\[\("[^"]*"\)\]|\(\["[^"]*"\]\)|\("[^"]*"\)|\{\{"[^"]*"\}\}|>"[^"]*"\])$/;
    const edgeLine = /^[A-Za-z0-9]+ -->\|"[^"]*"\| [A-Za-z0-9]+$/;
    const structure = /^(subgraph consumer_[A-Za-z0-9]+\["[a-z0-9-]+( \(generation \d+\))?"\]|end|classDef \w+ [\w:#,-]+|class [A-Za-z0-9,]+ \w+)$/;
    for (const line of lines) expect([nodeLine, edgeLine, structure].some((pattern) => pattern.test(line)) ? line : `unexpected: ${line}`).toBe(line);
  });

  test('draws every mapping, redrive policy, on-failure destination and alarm action', () => {
    const edges = (label: string): number => lines.filter((line) => line.includes(`|"${label}`) || line.includes(`; ${label}`)).length;
    const resources = Object.values(template.Resources);
    const count = (type: string, has: (props: Record<string, unknown>) => boolean = () => true): number =>
      resources.filter((r) => r.Type === type && has(r.Properties ?? {})).length;
    expect(lines.filter((line) => / -->\|"(events|records|stream records)"\|/.test(line))).toHaveLength(count('AWS::Lambda::EventSourceMapping'));
    expect(edges('after ')).toBe(count('AWS::SQS::Queue', (props) => props.RedrivePolicy !== undefined));
    expect(edges('on failure: batch metadata')).toBe(count('AWS::Lambda::EventSourceMapping', (props) => props.DestinationConfig !== undefined));
    expect(edges('ALARM and OK')).toBe(count('AWS::CloudWatch::Alarm'));
    expect(edges('fan-out')).toBe(count('AWS::SNS::Subscription', (props) => props.Protocol === 'sqs'));
  });

  test('draws the page views topic fanning out to the counter queue, and names the counter as its user', () => {
    expect(lines).toContain('PageViewsTopic -->|"fan-out, raw"| PageViewCounterQueue');
    expect(page).toMatch(/^\| `PageViewsTopic` \| SNS topic \| .* \| `page-view-counter` \|$/m);
  });
});

describe('a stack with one more consumer', () => {
  /** The page for the examples plus `consumers` (none: the examples alone, whatever example/consumers/ holds). */
  function pageWith(consumers: readonly AddConsumer[]): string {
    const app = testApp();
    app.node.setContext('aws:cdk:enable-path-metadata', true);
    const stack = new EventPipelineStack(app, 'EffectivelyOnce', { consumers });
    return renderArchitecture(Assertions.fromStack(stack).toJSON() as Template);
  }

  test('gets one more subgraph and one more row, and the examples are drawn as before', () => {
    const examples = pageWith([]);
    const extended = pageWith([
      (pipeline) =>
        new QueueConsumer(pipeline, 'ExtraConsumer', {
          consumerName: 'extra-consumer',
          entry: FIXTURE_HANDLER,
          alarmTopic: pipeline.alarmTopic.topic,
          tables: { IDEMPOTENCY_TABLE: pipeline.idempotencyTable.table },
        }),
    ]);
    expect(extended).toContain('subgraph consumer_ExtraConsumer["extra-consumer"]');
    expect(extended).toContain('| `extra-consumer` | SQS queue `ExtraConsumer/Queue` | 10 | none | maxReceiveCount 6; the function dead-letters with context at receive 5 |');
    expect(extended).toContain('ExtraConsumerDlq -->|"watched by"| ExtraConsumerDlqAlarmAlarm');
    // What the new consumer shares changes: the class lists, and the rows of the alarm topic and the idempotency table.
    const shared = (line: string): boolean => line.startsWith('  class ') || /`(Alarms\/Topic|IdempotencyTable\/Table)` \|/.test(line);
    const kept = new Set(extended.split('\n'));
    expect(examples.split('\n').filter((line) => !shared(line) && !kept.has(line))).toEqual([]);
  });
});

describe('the repository layout', () => {
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const topFolders = [...new Set(tracked.filter((file) => file.includes('/')).map((file) => `${file.split('/')[0]}/`))].filter((folder) => !folder.startsWith('.'));

  test('names every top-level folder of the repository, and only those', () => {
    expect(LAYOUT.map((entry) => entry.folder.split('/')[0] + '/').sort()).toEqual(topFolders.sort());
  });

  test('is the map in the README, word for word', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(layoutTable());
  });

  test('names every room of the runtime (each folder below lambdas/runtime/ that holds files), and only those', () => {
    const rooms = new Set(tracked.filter((file) => /^lambdas\/runtime\/.+\//.test(file)).map((file) => `${path.posix.dirname(file)}/`));
    expect(RUNTIME_ROOMS.map((room) => room.folder).sort()).toEqual([...rooms].sort());
  });

  test('gives each room of the runtime the imports that the ESLint configuration allows it', () => {
    // The config is an ES module: Jest's module sandbox cannot import() it, so a child process reads it.
    const script = "const { RUNTIME_ROOMS } = await import('./eslint.config.mjs'); process.stdout.write(JSON.stringify(RUNTIME_ROOMS.map(({ zone, may }) => [zone, may])));";
    const zones = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { cwd: ROOT, encoding: 'utf8' })) as [string, string[]][];
    const runtime = 'lambdas/runtime';
    expect(zones).toEqual(RUNTIME_ROOMS.map((room) => [room.folder.replace(/\/$/, ''), ['aws', ...room.mayImport.map((other) => `${runtime}/${other}`)]]));
  });
});
