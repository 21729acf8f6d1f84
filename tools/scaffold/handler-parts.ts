/**
 * What differs between generated handlers: per pattern, and for DynamoDB Streams (where the event
 * is the change itself) per source. `handler-template.ts` assembles these into a file.
 */
import { Pattern, Source, type ConsumerRequest } from './options';

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

const isStream = (request: ConsumerRequest): boolean => request.source === Source.DYNAMODB_STREAM;

/** The pieces for a request's pattern and source. */
export function handlerParts(request: ConsumerRequest): HandlerParts {
  switch (request.pattern) {
    case Pattern.COUNTER:
      return isStream(request) ? streamCounter() : envelopeCounter();
    case Pattern.UPSERT:
      return isStream(request) ? streamUpsert() : envelopeUpsert();
    case Pattern.EXTERNAL:
      return isStream(request) ? streamExternal() : envelopeExternal();
  }
}

const EVENT_TYPE_DOC = '/** The event type this consumer handles: a placeholder, use the `type` your producer publishes. */';

const TRANSACTIONAL = `transactionalStrategy({
      dynamodb,
      mode: 'batch',
      dedup: { table: config.idempotencyTable, consumer: name, ttlSeconds: config.dedupTtlSeconds },
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
    setup: `  // The event id is the stream record's eventID: a redelivered record dedups. To also dedup two
  // writes of the same fact, pass \`decode: dynamoStreamDecoder(keyOf)\` with a business key.
  const counted = route(change, (event) => countEffects(config.countersTable, event.payload));
`,
    routes: `'dynamodb.INSERT': counted,
      'dynamodb.MODIFY': counted,
      'dynamodb.REMOVE': counted,`,
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

/** A removal has no version to compare: projecting deletes needs a tombstone item with a version. */
const removal: Route<unknown, DirectResult> = {
  handle: async () => ({ status: 'skipped', reason: 'removals are not projected' }),
};`,
    configFields: UPSERT_CONFIG,
    environment: UPSERT_ENV,
    clients: ['dynamodb'],
    setup: `  const project = route(written, (event) =>
    putIfNewer(dynamodb, { table: config.projectionTable, item: { ...event.payload.newImage, eventId: event.eventId } }),
  );
`,
    routes: `'dynamodb.INSERT': project,
      'dynamodb.MODIFY': project,
      'dynamodb.REMOVE': removal,`,
    strategy: 'directStrategy(config.retry)',
  };
}

const EXTERNAL_CONFIG = ['readonly topicArn: string;', 'readonly idempotencyTable: string;'];
const EXTERNAL_ENV = { topicArn: 'TOPIC_ARN', idempotencyTable: 'IDEMPOTENCY_TABLE' };

/** The idempotent publish, shared by both sources. */
const PUBLISH_SETUP = `  // The placeholder external effect. Replace the publish with your call (an HTTP request, an
  // email) and hand it \`idempotencyKey\`: only the receiver can close the window in which a crash
  // after the call and before Powertools marks it COMPLETED repeats the call.
  const publish = idempotentEffect(
    async (input: PublishInput) => {
      const result = await sns.send(
        new PublishCommand({
          TopicArn: config.topicArn,
          Message: JSON.stringify(input.message),
          MessageAttributes: { eventId: { DataType: 'String', StringValue: input.idempotencyKey } },
        }),
      );
      return { messageId: result.MessageId };
    },
    { table: config.idempotencyTable, dynamodb, consumer: name, expiresAfterSeconds: config.dedupTtlSeconds },
  );
`;

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

/** What the consumer publishes; \`eventId\` is the receiver's idempotency key. */
export interface {{Pascal}}Message extends {{Pascal}}Payload {
  readonly eventId: string;
}

interface PublishInput {
  readonly idempotencyKey: string;
  readonly message: {{Pascal}}Message;
}`,
    configFields: EXTERNAL_CONFIG,
    environment: EXTERNAL_ENV,
    clients: ['dynamodb', 'sns'],
    setup: PUBLISH_SETUP,
    routes: `[EVENT_TYPE]: route(payload, async (event, context) => {
        await publish({ idempotencyKey: event.eventId, message: { eventId: event.eventId, ...event.payload } }, context.lambdaContext);
      }),`,
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

/** What the consumer publishes; \`eventId\` is the receiver's idempotency key. */
export interface {{Pascal}}Message {
  readonly eventId: string;
  readonly pk: string;
  readonly message: string;
}

interface PublishInput {
  readonly idempotencyKey: string;
  readonly message: {{Pascal}}Message;
}

/** Only inserts publish; other changes are acknowledged and skipped. */
const notInserted: Route<unknown, DirectResult> = {
  handle: async (event) => ({ status: 'skipped', reason: \`\${event.type}: nothing to publish\` }),
};`,
    configFields: EXTERNAL_CONFIG,
    environment: EXTERNAL_ENV,
    clients: ['dynamodb', 'sns'],
    setup: `${PUBLISH_SETUP}  // The event id is the stream record's eventID: a redelivered insert publishes once. An item
  // deleted and inserted again is a new insert; pass \`decode: dynamoStreamDecoder(keyOf)\` to key
  // on the item instead.
  const onInsert = route(inserted, async (event, context) => {
    const { pk, message } = event.payload.newImage;
    await publish({ idempotencyKey: event.eventId, message: { eventId: event.eventId, pk, message } }, context.lambdaContext);
  });
`,
    routes: `'dynamodb.INSERT': onInsert,
      'dynamodb.MODIFY': notInserted,
      'dynamodb.REMOVE': notInserted,`,
    strategy: 'directStrategy(config.retry)',
  };
}
