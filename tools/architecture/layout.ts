/**
 * The repository's layout: each top-level folder and the role it plays. The architecture page
 * renders it, and a test holds the README's map and the folders on disk to it, so that the map
 * cannot drift from the tree.
 */

/** One folder of the repository and what it is. */
export interface LayoutEntry {
  readonly folder: string;
  /** What it is, in a few words. */
  readonly role: string;
  /** What is in it, and who uses it. */
  readonly holds: string;
}

export const LAYOUT: readonly LayoutEntry[] = [
  { folder: 'lib/', role: 'the CDK constructs (published: `effectively-once`)', holds: 'QueueConsumer, KinesisConsumer, DynamoStreamConsumer, the idempotency table, the alarm topic, the governance helpers' },
  { folder: 'lambdas/runtime/', role: 'the Lambda runtime (published: `effectively-once/runtime`)', holds: 'createConsumer, routes, the transactional and direct strategies, effects, DLQ sends, retries, the time budget, the producer' },
  { folder: 'aws/', role: 'what the project knows about AWS, shared by every role (published)', holds: 'limits, the DLQ wrapper format, the environment contract, metric names, CloudFormation template reading, Lambda record formats, stream readers, a reference model of Lambda\'s batch semantics (SQS, FIFO, streams, DynamoDB writes)' },
  { folder: 'operations/', role: 'production operations (published: `eo dlq`, `eo replay`, `eo compare`)', holds: 'list, inspect and redrive of DLQs and on-failure queues, replay of a stream consumer\'s window, and the compare of a rebuilt generation with the live one, against AWS or local mode; imports nothing of the emulator' },
  { folder: 'emulator/', role: 'the local emulator (published: `eo local up`, `eo demo`)', holds: 'engines, the AWS contract layer (gateways, request rules, IAM), the stack from the template, event source mappings, functions, alarms, faults, the demo, the chaos schedules' },
  { folder: 'tools/', role: 'developer tooling', holds: '`eo new consumer` (scaffold), `eo docs` (docs/architecture.md), `npm run docs:api` (docs/api/, the API reference), `npm run bench`, `npm run scale-model`' },
  { folder: 'example/', role: 'the example app', holds: 'the event pipeline stack, its handlers, the registry of generated consumers' },
  { folder: 'cli/', role: 'what the commands share on the terminal', holds: 'tables, progress, escaping of outside text (a terminal shows it, never acts on it)' },
  { folder: 'bin/', role: 'entry points', holds: '`app.ts` (the example CDK app), `eo.ts`, `eo-program.ts` and `eo.js` (the CLI), `api-reference.ts`, `bench.ts`, `scale-model.ts`, `test-lambda-node.ts` (the runtime\'s tests on its Lambda Node.js)' },
  { folder: 'test/', role: 'the tests, one folder per role', holds: '`*.test.ts` need no engines, `*.int.test.ts` run on the local engines, `*.e2e.test.ts` run the CLI; `test/deploy` (moto) and `test/package` run apart' },
  { folder: 'docs/', role: 'documentation', holds: 'the API reference (api/), patterns, local mode, operations, security (the threat model), reliability, performance, scale, the architecture map' },
];

/** The layout as a Markdown table. */
export function layoutTable(): string {
  const rows = LAYOUT.map((entry) => `| \`${entry.folder}\` | ${entry.role} | ${entry.holds} |`);
  return ['| Folder | What it is | What it holds |', '| --- | --- | --- |', ...rows].join('\n');
}
