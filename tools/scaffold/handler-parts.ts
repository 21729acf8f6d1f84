/**
 * What differs between generated handlers: per pattern, and for DynamoDB Streams (where the event
 * is the change itself) per source. `handler-template.ts` assembles these into a file.
 */
import { Source, variantOf, type ConsumerRequest, type StrategyRequest } from './options';
import { indent } from './render';
import { SQL_TABLES_FROM_ENV } from './sql-parts';

/** Indents every line but the first, which the template places. */
function hang(text: string, spaces: number): string {
  const [first = '', ...rest] = text.split('\n');
  return [first, ...indent(rest.join('\n'), spaces).split('\n')].slice(0, rest.length + 1).join('\n');
}

/** The pattern-specific pieces of a handler file. */
export interface HandlerParts {
  /** What the consumer does, for the file's header. */
  readonly summary: string;
  /** Names imported from `../../lambdas/runtime` (types as `type X`). */
  readonly runtimeImports: readonly string[];
  /** Other import lines. */
  readonly otherImports: readonly string[];
  /** Constants, schemas and exported helpers, before the config interface. */
  readonly declarations: string;
  /** Config fields before the common ones, e.g. `readonly countersTable: string;`. */
  readonly configFields: readonly string[];
  /** Environment variables the config reads (beside the common ones), by config field. */
  readonly environment: Readonly<Record<string, string>>;
  /** Which clients `create<Name>` takes from `config.clients`. */
  readonly clients: readonly string[];
  /** Statements in `create<Name>` before `return createConsumer(...)`. */
  readonly setup: string;
  /** The `routes` object literal's entries. */
  readonly routes: string;
  /** The `strategy` expression. */
  readonly strategy: string;
}

/** The pieces for a request's pattern and source (the SQL pattern's handler is `sqlHandler`'s: ./handler-template.ts). */
export function handlerParts(request: StrategyRequest): HandlerParts {
  return variantOf(request, { counter: [envelopeCounter, streamCounter], upsert: [envelopeUpsert, streamUpsert], external: [envelopeExternal, streamExternal] });
}

/** What the consumer does, for the file's header, whichever the handler's shape. */
export function handlerSummary(request: ConsumerRequest): string {
  return variantOf(request, {
    counter: [() => envelopeCounter().summary, () => streamCounter().summary],
    upsert: [() => envelopeUpsert().summary, () => streamUpsert().summary],
    external: [() => envelopeExternal().summary, () => streamExternal().summary],
    sql: [() => SQL_SUMMARY.envelope, () => SQL_SUMMARY.stream],
  });
}

const SQL_SUMMARY = {
  envelope: 'records each event as a row and adds its amount to its key\'s total, in PostgreSQL, once however often it is delivered: its dedup row and its effects commit in one transaction',
  stream: 'keeps a count of the source table\'s items per category in PostgreSQL, each change applied once however often the stream delivers it: its dedup row and its effects commit in one transaction',
} as const;

/**
 * The body of a SQL handler's `routes(env)`: the tables from the environment, and the event's
 * effects (the in-repo and the team-app handlers' alike; their schemas differ).
 */
export function sqlRoutes(request: ConsumerRequest): string {
  if (request.source !== Source.DYNAMODB_STREAM) {
    return `  ${SQL_TABLES_FROM_ENV}
  return { [EVENT_TYPE]: route(payload, (event) => entryEffects(tables, event.eventId, event.payload)) };`;
  }
  return `  ${SQL_TABLES_FROM_ENV}
  // The event id is the stream record's eventID: a redelivered record finds its dedup row.
  const moved = route(change, (event) => changeEffects(tables, event.eventId, event.payload));
  return {
${indent(streamRoutes('moved', 'moved', 'moved'), 4)}
  };`;
}

const EVENT_TYPE_DOC = '/** The event type this consumer handles: a placeholder, use the `type` your producer publishes. */';

const TRANSACTIONAL = `transactionalStrategy({
      dynamodb,
      mode: 'batch',
      dedup: { table: config.idempotencyTable, consumer: name, generation: config.generation, ttlSeconds: config.dedupTtlSeconds },
      retry: config.retry,
    })`;

const COUNTER_CONFIG = ['readonly countersTable: string;', 'readonly idempotencyTable: string;'];
const COUNTER_ENV = { countersTable: 'COUNTERS_TABLE', idempotencyTable: 'IDEMPOTENCY_TABLE' };

function envelopeCounter(): HandlerParts {
  return {
    summary: 'counts each event once per key, however often it is delivered: its dedup record and its increment commit in one DynamoDB transaction',
    runtimeImports: ['increment', 'route', 'transactionalStrategy', 'type Effect'],
    otherImports: [],
    declarations: `${EVENT_TYPE_DOC}
export const EVENT_TYPE = '{{name}}.event';

/** The payload (a placeholder): the key whose counter the event increments. */
const payload = z.object({ key: z.string().check(z.minLength(1), z.maxLength(512)) });
export type {{Pascal}}Payload = z.infer<typeof payload>;

/** The effect of one event: \`ADD count 1\` on the counter item \`pk = <key>\`. */
export function countEffects(countersTable: string, key: string): Effect[] {
  return [increment(countersTable, { pk: key }, 'count')];
}`,
    configFields: COUNTER_CONFIG,
    environment: COUNTER_ENV,
    clients: ['dynamodb'],
    setup: '',
    routes: `[EVENT_TYPE]: route(payload, (event) => countEffects(config.countersTable, event.payload.key)),`,
    strategy: TRANSACTIONAL,
  };
}

function streamCounter(): HandlerParts {
  return {
    summary: 'counts the changes to the source table\'s items per category, each change once however often the stream delivers it: its dedup record and its increment commit in one DynamoDB transaction',
    runtimeImports: ['increment', 'route', 'transactionalStrategy', 'type Effect'],
    otherImports: [],
    declarations: `/** The attribute each kind of change is counted in. */
const COUNTED = { INSERT: 'inserted', MODIFY: 'modified', REMOVE: 'removed' } as const;

/** The source item as the stream shows it (a placeholder): it must have a \`category\`. */
const categorized = z.object({ category: z.string().check(z.minLength(1), z.maxLength(256)) });
/** The change (the runtime's \`StreamChange\`); the stream must carry images (NEW_AND_OLD_IMAGES). */
const change = z
  .object({ eventName: z.enum(['INSERT', 'MODIFY', 'REMOVE']), newImage: z.optional(categorized), oldImage: z.optional(categorized) })
  .check(z.refine((value) => value.newImage !== undefined || value.oldImage !== undefined, 'the change carries no item image'));
export type {{Pascal}}Change = z.infer<typeof change>;

/** The effect of one change: \`ADD <inserted|modified|removed> 1\` on \`pk = category#<category>\`. */
export function countEffects(countersTable: string, changed: {{Pascal}}Change): Effect[] {
  const image = changed.newImage ?? changed.oldImage;
  return image ? [increment(countersTable, { pk: \`category#\${image.category}\` }, COUNTED[changed.eventName])] : [];
}`,
    configFields: COUNTER_CONFIG,
    environment: COUNTER_ENV,
    clients: ['dynamodb'],
    setup: `${indent(STREAM_EVENT_ID_NOTES.counter, 2)}
  const counted = route(change, (event) => countEffects(config.countersTable, event.payload));
`,
    routes: hang(streamRoutes('counted', 'counted', 'counted'), 6),
    strategy: TRANSACTIONAL,
  };
}

const UPSERT_CONFIG = ['readonly projectionTable: string;'];
const UPSERT_ENV = { projectionTable: 'PROJECTION_TABLE' };

function envelopeUpsert(): HandlerParts {
  return {
    summary: 'keeps one item per id at the newest version the producer sent; a replay or a late delivery of an older version changes nothing',
    runtimeImports: ['directStrategy', 'putIfNewer', 'route'],
    otherImports: [],
    declarations: `${EVENT_TYPE_DOC}
export const EVENT_TYPE = '{{name}}.event';

/** The payload (a placeholder): the item's id, the producer's version of it (it must grow), and its data. */
const payload = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  version: z.number().check(z.int(), z.minimum(1)),
  data: z.record(z.string(), z.unknown()),
});
export type {{Pascal}}Payload = z.infer<typeof payload>;`,
    configFields: UPSERT_CONFIG,
    environment: UPSERT_ENV,
    clients: ['dynamodb'],
    setup: '',
    routes: `[EVENT_TYPE]: route(payload, (event) =>
        putIfNewer(dynamodb, {
          table: config.projectionTable,
          item: { pk: event.payload.id, version: event.payload.version, data: event.payload.data, updatedAt: event.occurredAt, eventId: event.eventId },
        }),
      ),`,
    strategy: 'directStrategy(config.retry)',
  };
}

function streamUpsert(): HandlerParts {
  return {
    summary: 'copies each item of the source table to the projection table at its newest version; a replayed or late change of an older version changes nothing',
    runtimeImports: ['directStrategy', 'putIfNewer', 'route', 'type DirectResult', 'type Route'],
    otherImports: [],
    declarations: `/** The source item (a placeholder): its key, and a \`version\` that every write must increase. */
const versionedItem = z.looseObject({ pk: z.string().check(z.minLength(1), z.maxLength(1024)), version: z.number().check(z.int(), z.minimum(1)) });
/** An insert or a modification, with the item as it now is. */
const written = z.object({ newImage: versionedItem });

${SKIPPED_ROUTES.removal}`,
    configFields: UPSERT_CONFIG,
    environment: UPSERT_ENV,
    clients: ['dynamodb'],
    setup: `  const project = route(written, (event) =>
    putIfNewer(dynamodb, { table: config.projectionTable, item: { ...event.payload.newImage, eventId: event.eventId } }),
  );
`,
    routes: hang(streamRoutes('project', 'project', 'removal'), 6),
    strategy: 'directStrategy(config.retry)',
  };
}

const EXTERNAL_CONFIG = ['readonly topicArn: string;', 'readonly idempotencyTable: string;'];
const EXTERNAL_ENV = { topicArn: 'TOPIC_ARN', idempotencyTable: 'IDEMPOTENCY_TABLE' };

/** How a handler file names what the idempotent publish uses (besides its clients `sns` and `dynamodb`): its settings and consumer name. */
export interface PublishRefs {
  readonly topicArn: string;
  readonly idempotencyTable: string;
  readonly consumer: string;
  readonly generation: string;
  readonly dedupTtlSeconds: string;
}

/** The idempotent publish, shared by both sources and by the team-app handlers. */
export function publishSetup(refs: PublishRefs): string {
  return `  // The placeholder external effect. Replace the publish with your call (an HTTP request, an
  // email) and hand it \`idempotencyKey\`: only the receiver can close the window in which a crash
  // after the call and before Powertools marks it COMPLETED repeats the call.
  const publish = idempotentEffect(
    async (input: PublishInput) => {
      const result = await sns.send(
        new PublishCommand({
          TopicArn: ${refs.topicArn},
          Message: JSON.stringify(input.message),
          MessageAttributes: { eventId: { DataType: 'String', StringValue: input.idempotencyKey } },
        }),
      );
      return { messageId: result.MessageId };
    },
    { table: ${refs.idempotencyTable}, dynamodb, consumer: ${refs.consumer}, generation: ${refs.generation}, expiresAfterSeconds: ${refs.dedupTtlSeconds} },
  );
`;
}

const PUBLISH_SETUP = publishSetup({ topicArn: 'config.topicArn', idempotencyTable: 'config.idempotencyTable', consumer: 'name', generation: 'config.generation', dedupTtlSeconds: 'config.dedupTtlSeconds' });

/** What the consumer publishes for an event; `eventId` is the receiver's idempotency key. */
export const ENVELOPE_MESSAGE = `/** What the consumer publishes; \`eventId\` is the receiver's idempotency key. */
export interface {{Pascal}}Message extends {{Pascal}}Payload {
  readonly eventId: string;
}`;

/** What the consumer publishes for an inserted item. */
export const STREAM_MESSAGE = `/** What the consumer publishes; \`eventId\` is the receiver's idempotency key. */
export interface {{Pascal}}Message {
  readonly eventId: string;
  readonly pk: string;
  readonly message: string;
}`;

/** What the publish takes: the receiver's idempotency key and the message. */
export const PUBLISH_INPUT = `interface PublishInput {
  readonly idempotencyKey: string;
  readonly message: {{Pascal}}Message;
}`;

/** The envelope route of the external pattern: one idempotent publish per event. */
export const ENVELOPE_PUBLISH_ROUTE = `[EVENT_TYPE]: route(payload, async (event, context) => {
  await publish({ idempotencyKey: event.eventId, message: { eventId: event.eventId, ...event.payload } }, context.lambdaContext);
}),`;

/** The stream's other changes, acknowledged: removals are not projected, and only inserts publish. */
export const SKIPPED_ROUTES = {
  removal: `/** A removal has no version to compare: projecting deletes needs a tombstone item with a version. */
const removal: Route<unknown, DirectResult> = {
  handle: async () => ({ status: 'skipped', reason: 'removals are not projected' }),
};`,
  notInserted: `/** Only inserts publish; other changes are acknowledged and skipped. */
const notInserted: Route<unknown, DirectResult> = {
  handle: async (event) => ({ status: 'skipped', reason: \`\${event.type}: nothing to publish\` }),
};`,
} as const;

/** Why a stream consumer's dedup key is the record's eventID, and how to key on the item instead. */
export const STREAM_EVENT_ID_NOTES = {
  counter: `// The event id is the stream record's eventID: a redelivered record dedups. To also dedup two
// writes of the same fact, pass \`decode: dynamoStreamDecoder(keyOf)\` with a business key.`,
  external: `// The event id is the stream record's eventID: a redelivered insert publishes once. An item
// deleted and inserted again is a new insert; pass \`decode: dynamoStreamDecoder(keyOf)\` to key
// on the item instead.`,
} as const;

/** The stream's onInsert route of the external pattern. */
export const STREAM_PUBLISH_ROUTE = `const onInsert = route(inserted, async (event, context) => {
  const { pk, message } = event.payload.newImage;
  await publish({ idempotencyKey: event.eventId, message: { eventId: event.eventId, pk, message } }, context.lambdaContext);
});`;

/** The three stream routes, by what handles each kind of change. */
export function streamRoutes(insert: string, modify: string, remove: string): string {
  return `'dynamodb.INSERT': ${insert},\n'dynamodb.MODIFY': ${modify},\n'dynamodb.REMOVE': ${remove},`;
}

function envelopeExternal(): HandlerParts {
  return {
    summary: 'publishes one message per event to its topic, however often the event is delivered: the publish is wrapped in Powertools idempotency keyed on the eventId',
    runtimeImports: ['directStrategy', 'idempotentEffect', 'route'],
    otherImports: ["import { PublishCommand } from '@aws-sdk/client-sns';"],
    declarations: `${EVENT_TYPE_DOC}
export const EVENT_TYPE = '{{name}}.event';

/** The payload (a placeholder): who to tell, and what. */
const payload = z.object({ recipient: z.string().check(z.minLength(1), z.maxLength(256)), message: z.string().check(z.minLength(1), z.maxLength(10_000)) });
export type {{Pascal}}Payload = z.infer<typeof payload>;

${ENVELOPE_MESSAGE}

${PUBLISH_INPUT}`,
    configFields: EXTERNAL_CONFIG,
    environment: EXTERNAL_ENV,
    clients: ['dynamodb', 'sns'],
    setup: PUBLISH_SETUP,
    routes: hang(ENVELOPE_PUBLISH_ROUTE, 6),
    strategy: 'directStrategy(config.retry)',
  };
}

function streamExternal(): HandlerParts {
  return {
    summary: 'publishes one message per item inserted into the source table, however often the stream delivers the insert: the publish is wrapped in Powertools idempotency keyed on the change\'s eventId',
    runtimeImports: ['directStrategy', 'idempotentEffect', 'route', 'type DirectResult', 'type Route'],
    otherImports: ["import { PublishCommand } from '@aws-sdk/client-sns';"],
    declarations: `/** An inserted item (a placeholder): its key and the message to send. */
const inserted = z.object({
  newImage: z.object({ pk: z.string().check(z.minLength(1), z.maxLength(1024)), message: z.string().check(z.minLength(1), z.maxLength(10_000)) }),
});

${STREAM_MESSAGE}

${PUBLISH_INPUT}

${SKIPPED_ROUTES.notInserted}`,
    configFields: EXTERNAL_CONFIG,
    environment: EXTERNAL_ENV,
    clients: ['dynamodb', 'sns'],
    setup: `${PUBLISH_SETUP}${indent(STREAM_EVENT_ID_NOTES.external, 2)}
${indent(STREAM_PUBLISH_ROUTE, 2)}
`,
    routes: hang(streamRoutes('onInsert', 'notInserted', 'notInserted'), 6),
    strategy: 'directStrategy(config.retry)',
  };
}
