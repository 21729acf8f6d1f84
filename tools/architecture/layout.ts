/**
 * The repository's layout: each top-level folder and the role it plays, and the rooms of the
 * runtime. The architecture page renders both, and a test holds the README's map and the folders
 * on disk to them, so that the map cannot drift from the tree.
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
  { folder: 'lambdas/runtime/', role: 'the Lambda runtime (published: `effectively-once/runtime`)', holds: 'createConsumer, routes, the transactional and direct strategies, effects, DLQ sends, retries, the time budget, the producer, in rooms by role (docs/architecture.md lists them) behind `index.ts`, its whole public surface' },
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

/** One room of the runtime (a folder of lambdas/runtime/), what it holds, and the rooms it may import. */
export interface RuntimeRoom {
  readonly folder: string;
  /** What it is, in a few words. */
  readonly role: string;
  /** The other rooms it may import (every room may import `aws/`); eslint.config.mjs enforces the same list. */
  readonly mayImport: readonly string[];
}

/** The runtime's rooms, in the order of their dependencies: each imports only rooms above it. */
export const RUNTIME_ROOMS: readonly RuntimeRoom[] = [
  { folder: 'lambdas/runtime/core/', role: 'the vocabulary every room shares: errors and their classification, retries with backoff, the time budget, metrics and logs, exact decimals, canonical JSON', mayImport: [] },
  { folder: 'lambdas/runtime/events/', role: 'the event format producers write and consumers read: the envelope, event ids, payload schemas', mayImport: ['core'] },
  { folder: 'lambdas/runtime/decoding/', role: 'the sources\' records decoded into events: which source a batch came from, SQS, Kinesis and DynamoDB Streams records, SNS, EventBridge and CloudEvents envelopes, stream images, routes', mayImport: ['core', 'events'] },
  { folder: 'lambdas/runtime/failures/', role: 'what happens to a failed record: DLQ sends with their context, visibility backoff', mayImport: ['core', 'events', 'decoding'] },
  { folder: 'lambdas/runtime/producing/', role: 'publishing events to SQS, Kinesis and SNS, resending what was refused', mayImport: ['core', 'events'] },
  { folder: 'lambdas/runtime/consumer/', role: 'the consumer loop and its settle step, the Strategy port that stores implement, the direct strategy (which writes to no store), the environment a consumer reads', mayImport: ['core', 'events', 'decoding', 'failures'] },
  { folder: 'lambdas/runtime/stores/dynamodb/', role: 'the DynamoDB store: the transactional strategy, its committer and dedup records, effects, sharded counters, versioned upserts, idempotent external effects; a store imports no other store', mayImport: ['core', 'events', 'decoding', 'failures', 'consumer'] },
  { folder: 'lambdas/runtime/stores/postgres/', role: 'the PostgreSQL store: the SQL strategy (dedup rows in the effects\' transaction), the `sql` tag, SQL effects (increments, versioned upserts), the SqlSession port that a Data API client or a PostgreSQL connection implements', mayImport: ['core', 'events', 'decoding', 'failures', 'consumer'] },
  { folder: 'lambdas/runtime/one-call/', role: 'the one-call handlers, which wire the consumer to a store (DynamoDB, or PostgreSQL through the Data API) from the environment their construct set, and the AWS clients', mayImport: ['core', 'events', 'decoding', 'failures', 'producing', 'consumer', 'stores/dynamodb', 'stores/postgres'] },
];

/** The layout as a Markdown table. */
export function layoutTable(): string {
  const rows = LAYOUT.map((entry) => `| \`${entry.folder}\` | ${entry.role} | ${entry.holds} |`);
  return ['| Folder | What it is | What it holds |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The runtime's rooms as a Markdown table. */
export function runtimeRoomsTable(): string {
  const rows = RUNTIME_ROOMS.map((room) => `| \`${room.folder}\` | ${room.role} | ${['`aws/`', ...room.mayImport.map((other) => `\`${other}/\``)].join(', ')} |`);
  return ['| Room | What it holds | May import |', '| --- | --- | --- |', ...rows].join('\n');
}
