/**
 * What differs between the handlers `eo new consumer` writes into a team's app, per pattern and,
 * for DynamoDB Streams (where the event is the change itself), per source. The app has no schema
 * library of ours, so the placeholder schemas are Standard Schema objects from a small `schema()`
 * written into the file; the routes, the publish and the skipped changes are the in-repo
 * handlers' own (./handler-parts.ts). `app-templates.ts` assembles the file.
 */
import {
  ENVELOPE_MESSAGE,
  ENVELOPE_PUBLISH_ROUTE,
  handlerSummary,
  PUBLISH_INPUT,
  publishSetup,
  SKIPPED_ROUTES,
  STREAM_EVENT_ID_NOTES,
  STREAM_MESSAGE,
  STREAM_PUBLISH_ROUTE,
  sqlRoutes,
  streamRoutes,
} from './handler-parts';
import { variantOf, type ConsumerRequest, type Pattern } from './options';
import { indent } from './render';
import { sqlEffectDeclarations } from './sql-parts';

/** The one-call handler a pattern uses, and the result type of its routes. */
export const HANDLER_KIND = {
  counter: { call: 'transactionalHandler', result: 'Effects' },
  upsert: { call: 'directHandler', result: 'DirectResult' },
  external: { call: 'directHandler', result: 'DirectResult' },
  sql: { call: 'sqlHandler', result: 'SqlEffects' },
} as const satisfies Record<Pattern, { call: string; result: string }>;

/** The pattern-specific pieces of a team-app handler file. */
export interface AppHandlerParts {
  /** What the consumer does, for the file's header: the in-repo handler's words. */
  readonly summary: string;
  /** Names from `effectively-once/runtime` besides the common ones (types as `type X`). */
  readonly runtimeImports: readonly string[];
  readonly otherImports: readonly string[];
  /** The value checks the schemas call, from CHECKS. */
  readonly checks: readonly (keyof typeof CHECKS)[];
  /** Types, schemas and constants, before the routes. */
  readonly declarations: string;
  /** The body of `routes(env)`. */
  readonly routes: string;
}

/** The checks a placeholder schema may call, each written into the file only when used. */
export const CHECKS = {
  isText: 'const isText = (value: unknown, max: number): value is string => typeof value === \'string\' && value.length > 0 && value.length <= max;',
  isVersion: 'const isVersion = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1;',
  isObject: 'const isObject = (value: unknown): value is Record<string, unknown> => typeof value === \'object\' && value !== null && !Array.isArray(value);',
  isAmount: 'const isAmount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;',
} as const;

const EVENT_TYPE = `/** The event type this consumer handles: a placeholder, use the \`type\` your producer publishes. */
export const EVENT_TYPE = '{{name}}.event';`;

/** The pieces for a request's pattern and source. */
export function appHandlerParts(request: ConsumerRequest): AppHandlerParts {
  const parts = variantOf(request, { counter: [envelopeCounter, streamCounter], upsert: [envelopeUpsert, streamUpsert], external: [envelopeExternal, streamExternal], sql: [() => envelopeSql(request), () => streamSql(request)] });
  return { summary: handlerSummary(request), ...parts };
}

type Parts = Omit<AppHandlerParts, 'summary'>;

function envelopeCounter(): Parts {
  return {
    runtimeImports: ['increment'],
    otherImports: [],
    checks: ['isText'],
    declarations: `${EVENT_TYPE}

/** The payload (a placeholder): the key whose counter the event increments. */
export interface {{Pascal}}Payload {
  readonly key: string;
}

const payload = schema<{{Pascal}}Payload>((value) => (isText(value.key, 512) ? undefined : 'key must be a string of 1 to 512 characters'));`,
    routes: `  const counters = env.require('COUNTERS_TABLE');
  return { [EVENT_TYPE]: route(payload, (event) => [increment(counters, { pk: event.payload.key }, 'count')]) };`,
  };
}

function streamCounter(): Parts {
  return {
    runtimeImports: ['increment'],
    otherImports: [],
    checks: ['isText'],
    declarations: `/** The attribute each kind of change is counted in. */
const COUNTED = { INSERT: 'inserted', MODIFY: 'modified', REMOVE: 'removed' } as const;

/** The change (the runtime's \`StreamChange\`) to a source item (a placeholder: it must have a \`category\`); the stream carries both images. */
export interface {{Pascal}}Change {
  readonly eventName: keyof typeof COUNTED;
  readonly newImage?: { readonly category: string };
  readonly oldImage?: { readonly category: string };
}

const change = schema<{{Pascal}}Change>((value) => {
  const image = value.newImage ?? value.oldImage;
  return isText(image?.category, 256) ? undefined : 'the item must have a category of 1 to 256 characters';
});`,
    routes: `  const counters = env.require('COUNTERS_TABLE');
${indent(STREAM_EVENT_ID_NOTES.counter, 2)}
  const counted = route(change, (event) => {
    const image = event.payload.newImage ?? event.payload.oldImage;
    return image ? [increment(counters, { pk: \`category#\${image.category}\` }, COUNTED[event.payload.eventName])] : [];
  });
  return {
${indent(streamRoutes('counted', 'counted', 'counted'), 4)}
  };`,
  };
}

function envelopeUpsert(): Parts {
  return {
    runtimeImports: ['putIfNewer'],
    otherImports: [],
    checks: ['isText', 'isVersion', 'isObject'],
    declarations: `${EVENT_TYPE}

/** The payload (a placeholder): the item's id, the producer's version of it (it must grow), and its data. */
export interface {{Pascal}}Payload {
  readonly id: string;
  readonly version: number;
  readonly data: Record<string, unknown>;
}

const payload = schema<{{Pascal}}Payload>((value) =>
  isText(value.id, 256) && isVersion(value.version) && isObject(value.data) ? undefined : 'must have an id of 1 to 256 characters, a whole version of at least 1 and a data object',
);`,
    routes: `  const projection = env.require('PROJECTION_TABLE');
  return {
    [EVENT_TYPE]: route(payload, (event) =>
      putIfNewer(env.clients.dynamodb, {
        table: projection,
        item: { pk: event.payload.id, version: event.payload.version, data: event.payload.data, updatedAt: event.occurredAt, eventId: event.eventId },
      }),
    ),
  };`,
  };
}

function streamUpsert(): Parts {
  return {
    runtimeImports: ['putIfNewer', 'type Route'],
    otherImports: [],
    checks: ['isText', 'isVersion'],
    declarations: `/** The source item (a placeholder): its key, and a \`version\` that every write must increase. */
export interface {{Pascal}}Item {
  readonly pk: string;
  readonly version: number;
  readonly [attribute: string]: unknown;
}

/** An insert or a modification, with the item as it now is. */
const written = schema<{ readonly newImage: {{Pascal}}Item }>((value) =>
  isText(value.newImage?.pk, 1024) && isVersion(value.newImage?.version) ? undefined : 'the item must have a pk of 1 to 1024 characters and a whole version of at least 1',
);

${SKIPPED_ROUTES.removal}`,
    routes: `  const projection = env.require('PROJECTION_TABLE');
  const project = route(written, (event) => putIfNewer(env.clients.dynamodb, { table: projection, item: { ...event.payload.newImage, eventId: event.eventId } }));
  return {
${indent(streamRoutes('project', 'project', 'removal'), 4)}
  };`,
  };
}

/** The publish's setup inside \`routes(env)\`: its clients and settings from the environment. */
const PUBLISH = `  const { dynamodb, sns } = env.clients;
  const [topicArn, idempotencyTable] = [env.require('TOPIC_ARN'), env.require('IDEMPOTENCY_TABLE')];
${publishSetup({ topicArn: 'topicArn', idempotencyTable: 'idempotencyTable', consumer: 'env.settings.consumerName', generation: 'env.settings.generation', dedupTtlSeconds: 'env.settings.dedupTtlSeconds' })}`;

const EXTERNAL_IMPORTS = ["import { PublishCommand } from '@aws-sdk/client-sns';"];

function envelopeExternal(): Parts {
  return {
    runtimeImports: ['idempotentEffect'],
    otherImports: EXTERNAL_IMPORTS,
    checks: ['isText'],
    declarations: `${EVENT_TYPE}

/** The payload (a placeholder): who to tell, and what. */
export interface {{Pascal}}Payload {
  readonly recipient: string;
  readonly message: string;
}

const payload = schema<{{Pascal}}Payload>((value) =>
  isText(value.recipient, 256) && isText(value.message, 10_000) ? undefined : 'must have a recipient of 1 to 256 characters and a message of 1 to 10000',
);

${ENVELOPE_MESSAGE}

${PUBLISH_INPUT}`,
    routes: `${PUBLISH}  return {
${indent(ENVELOPE_PUBLISH_ROUTE, 4)}
  };`,
  };
}

function streamExternal(): Parts {
  return {
    runtimeImports: ['idempotentEffect', 'type Route'],
    otherImports: EXTERNAL_IMPORTS,
    checks: ['isText'],
    declarations: `/** An inserted item (a placeholder): its key and the message to send. */
const inserted = schema<{ readonly newImage: { readonly pk: string; readonly message: string } }>((value) =>
  isText(value.newImage?.pk, 1024) && isText(value.newImage?.message, 10_000) ? undefined : 'the item must have a pk of 1 to 1024 characters and a message of 1 to 10000',
);

${STREAM_MESSAGE}

${PUBLISH_INPUT}

${SKIPPED_ROUTES.notInserted}`,
    routes: `${PUBLISH}${indent(STREAM_EVENT_ID_NOTES.external, 2)}
${indent(STREAM_PUBLISH_ROUTE, 2)}
  return {
${indent(streamRoutes('onInsert', 'notInserted', 'notInserted'), 4)}
  };`,
  };
}

const SQL_IMPORTS = ['sqlIncrement', 'sqlInsert'];

function envelopeSql(request: ConsumerRequest): Parts {
  return {
    runtimeImports: SQL_IMPORTS,
    otherImports: [],
    checks: ['isText', 'isAmount'],
    declarations: `${EVENT_TYPE}

/** The payload (a placeholder): the key whose total the event adds to, and a whole amount of at least 1. */
export interface {{Pascal}}Payload {
  readonly key: string;
  readonly amount: number;
}

const payload = schema<{{Pascal}}Payload>((value) =>
  isText(value.key, 512) && isAmount(value.amount) ? undefined : 'must have a key of 1 to 512 characters and a whole amount of at least 1',
);

${sqlEffectDeclarations(request)}`,
    routes: sqlRoutes(request),
  };
}

function streamSql(request: ConsumerRequest): Parts {
  return {
    runtimeImports: SQL_IMPORTS,
    otherImports: [],
    checks: ['isText'],
    declarations: `/** The change (the runtime's \`StreamChange\`) to a source item (a placeholder: its \`pk\` and a \`category\`); the stream carries both images. */
export interface {{Pascal}}Change {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly newImage?: { readonly pk: string; readonly category: string };
  readonly oldImage?: { readonly pk: string; readonly category: string };
}

const change = schema<{{Pascal}}Change>((value) => {
  const images = [value.newImage, value.oldImage].filter((image) => image !== undefined);
  const valid = images.length > 0 && images.every((image) => isText(image?.pk, 1024) && isText(image?.category, 256));
  return valid ? undefined : 'the item must have a pk of 1 to 1024 characters and a category of 1 to 256';
});

${sqlEffectDeclarations(request)}`,
    routes: sqlRoutes(request),
  };
}
