/**
 * The real consumer, as a team would write it, over the model world: one route whose handler
 * records that it ran and plays its event's script (fail transiently for the first runs, or
 * always permanently for poison), then applies the event, by effects committed with the dedup
 * record (transactional strategies) or by a conditional put of its own (direct strategy).
 */
import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { createConsumer, type BatchHandler } from '../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../lambdas/runtime/failures/dlq';
import { increment } from '../../lambdas/runtime/stores/dynamodb/effects';
import { PermanentError, TransientError } from '../../lambdas/runtime/core/errors';
import { SourceKind } from '../../lambdas/runtime/decoding/records';
import { dynamoStreamDecoder, route, type ConsumedEvent, type HandlerContext, type Routes } from '../../lambdas/runtime/decoding/routes';
import { DEFAULT_DIRECT_CONCURRENCY, directStrategy, type DirectResult } from '../../lambdas/runtime/consumer/direct-strategy';
import { transactionalStrategy, type Effects } from '../../lambdas/runtime/stores/dynamodb/transactional-strategy';
import type { SqlEffects } from '../../lambdas/runtime/stores/postgres/effects';
import type { SqlSession } from '../../lambdas/runtime/stores/postgres/session';
import { sqlStrategy } from '../../lambdas/runtime/stores/postgres/sql-strategy';
import { type Strategy } from '../../lambdas/runtime/consumer/strategy';
import { VisibilityBackoff } from '../../lambdas/runtime/failures/visibility';
import { noSleep, recordingObservability, seededRandom } from '../helpers/fakes';
import type { Schedule } from './schedule';
import { ledgerEffects } from './sql-ledger';
import { SQL_DEDUP_TABLE, SQL_TABLES } from './sql-store';
import { EVENT_TYPE, FUNCTION_TIMEOUT_MS, type EventFacts, type ModelSource } from './sources';
import { EFFECTS_TABLE, EVENT_ITEM_PREFIX, IDEMPOTENCY_TABLE, type World } from './world';

export const CONSUMER = 'model';
const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/model-dlq';
/**
 * The direct strategy's bound, by the schedule's seed (so that the schedules fast-check draws for a
 * seed stay the same): one at a time, a bound that batches of up to 10 queue behind, and the
 * default, which runs them whole.
 */
const DIRECT_CONCURRENCIES = [1, 2, DEFAULT_DIRECT_CONCURRENCY] as const;
/** Shards of each group's counter: groups committing at once should land on different ones. */
const GROUP_COUNTER_SHARDS = 4;

const facts = z.object({ key: z.string(), seq: z.number().int(), variant: z.number().int(), poison: z.boolean().optional() });
const change = z.object({ newImage: facts });

/** What the route's handler returns, by strategy. */
type ModelEffects = Effects | DirectResult | SqlEffects;

/**
 * A bug planted on purpose, to show what the checker finds only with invocations at once:
 * `check-then-act` makes the direct strategy's handler read the event's item and then put it
 * unconditionally, which one invocation at a time never catches (the second run reads the first's
 * write) and two at once do (both read before either writes).
 */
export type ModelPlant = 'check-then-act';

/** A fresh consumer, as a new execution environment builds it (after a crash, say); `session`: the `sql` strategy's. */
export function consumerFor(schedule: Schedule, source: ModelSource, world: World, session?: SqlSession, plant?: ModelPlant): BatchHandler {
  const random = seededRandom(schedule.seed);
  const retry = { maxAttempts: 3, sleep: noSleep, random };
  const dynamodb = world.dynamodb as unknown as DynamoDBClient;
  const sqs = world.sqs as unknown as SQSClient;
  const dlqUrl = source.fifo ? `${DLQ_URL}.fifo` : DLQ_URL;
  return createConsumer<ModelEffects>({
    name: CONSUMER,
    source: source.kind,
    routes: routesFor(schedule, source, world, dynamodb, plant),
    strategy: strategyFor(schedule, { dynamodb, session }, world, retry) as Strategy<ModelEffects>,
    ...(source.kind === SourceKind.DYNAMODB_STREAM && { decode: dynamoStreamDecoder((streamChange) => streamChange.newImage?.eventId as string) }),
    dlq: new DlqSender(sqs, dlqUrl, { ...retry, maxAttempts: 2 }),
    ...(source.kind === SourceKind.SQS && {
      maxAttempts: schedule.maxAttempts,
      maxReceiveCount: source.maxReceiveCount,
      visibility: new VisibilityBackoff(sqs, { queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/model', random, now: () => world.now }),
    }),
    observability: recordingObservability(),
    now: () => new Date(world.now),
  });
}

function strategyFor(schedule: Schedule, stores: { dynamodb: DynamoDBClient; session?: SqlSession }, world: World, retry: object): Strategy<Effects> | Strategy<DirectResult> | Strategy<SqlEffects> {
  const { dynamodb, session } = stores;
  if (schedule.strategy === 'direct') return directStrategy({ ...retry, concurrency: DIRECT_CONCURRENCIES[schedule.seed % DIRECT_CONCURRENCIES.length] });
  if (schedule.strategy === 'sql') {
    if (session === undefined) throw new Error('the sql strategy needs a session');
    return noteFailedReads(sqlStrategy({ session, dedup: { table: SQL_DEDUP_TABLE, consumer: CONSUMER }, retry: { ...retry, sleep: virtualSleep(world) }, now: () => new Date(world.now) }), world);
  }
  return transactionalStrategy({ dynamodb, dedup: { table: IDEMPOTENCY_TABLE, consumer: CONSUMER }, retry, random: seededRandom(schedule.seed + 1), now: () => new Date(world.now), mode: schedule.strategy });
}

function routesFor(schedule: Schedule, source: ModelSource, world: World, dynamodb: DynamoDBClient, plant?: ModelPlant): Routes<ModelEffects> {
  const handle = (event: ConsumedEvent<unknown>, payload: EventFacts, context: HandlerContext) => {
    const failsNow = world.handlerRun(context.record.itemIdentifier, event.eventId, schedule.events[payload.seq]?.transientFailures ?? 0);
    const { itemIdentifier } = context.record;
    if (payload.poison) throw world.handlerThrow(itemIdentifier, new PermanentError(`event ${payload.seq} can never apply (poison)`));
    if (failsNow) throw world.handlerThrow(itemIdentifier, new TransientError(`event ${payload.seq}: its dependency is down for now`));
    if (schedule.strategy === 'direct') return plant === 'check-then-act' ? applyAfterACheck(dynamodb, event.eventId) : applyDirectly(dynamodb, event.eventId);
    return schedule.strategy === 'sql' ? sqlEffectsOf(schedule, event.eventId, payload) : effectsOf(event.eventId, payload);
  };
  if (source.kind === SourceKind.DYNAMODB_STREAM) return { 'dynamodb.INSERT': route(change, (event, context) => handle(event, event.payload.newImage, context)) };
  return { [EVENT_TYPE]: route(facts, (event, context) => handle(event, event.payload, context)) };
}

/** The event's row, its group's counter, and the operation the schedule gives it on its group's accounts (sql-ledger.ts). */
function sqlEffectsOf(schedule: Schedule, eventId: string, payload: EventFacts): SqlEffects {
  const ops = schedule.sql?.ops ?? [{ kind: 'deposit', account: 0, amount: 1 }];
  return ledgerEffects(SQL_TABLES, eventId, payload.key, ops[payload.seq % ops.length]!);
}

/** The SQL strategy's waits (a resuming cluster's, the retries' backoff) pass on the world's clock, so that a pause is waited out within the time budget as on AWS. */
function virtualSleep(world: World): (ms: number) => Promise<void> {
  return async (ms) => {
    world.now += ms;
  };
}

/**
 * The strategy, its check of what applied noted as a failed read when it fails: the runtime could
 * not tell (the checker's noFalsePages knows). Its runs note their events' dedup rows as attempted
 * once a Data API call went out for them, whatever became of it: a transaction throttled at its
 * `BeginTransaction` attempted its events as much as a throttled `TransactWriteItems` does, though
 * its dedup `INSERT` never ran.
 */
function noteFailedReads(strategy: Strategy<SqlEffects>, world: World): Strategy<SqlEffects> {
  const applied = strategy.applied?.bind(strategy);
  if (applied === undefined) return strategy;
  return {
    apply: async (events, run) => {
      const prepared: string[] = [];
      const watched = events.map((accepted) => ({ ...accepted, invoke: () => {
        const effects = accepted.invoke();
        prepared.push(accepted.event.eventId);
        return effects;
      } }));
      const callsBefore = world.callsMade;
      try {
        return await strategy.apply(watched, run);
      } finally {
        if (world.callsMade > callsBefore) for (const eventId of prepared) world.noteDedupAttempt(eventId);
      }
    },
    applied: async (eventIds) => {
      try {
        return await applied(eventIds);
      } catch (error) {
        world.noteFailedRead();
        throw error;
      }
    },
  };
}

/** The event's own item, and its group's sharded counter. */
function effectsOf(eventId: string, payload: EventFacts): Effects {
  return [increment(EFFECTS_TABLE, { pk: `${EVENT_ITEM_PREFIX}${eventId}` }, 'applied'), increment(EFFECTS_TABLE, { pk: `group#${payload.key}` }, 'count', 1, { shards: GROUP_COUNTER_SHARDS })];
}

/** A direct handler, idempotent by itself: a put of the event's item unless it exists. */
async function applyDirectly(dynamodb: DynamoDBClient, eventId: string): DirectResult {
  try {
    await dynamodb.send(new PutItemCommand({ TableName: EFFECTS_TABLE, Item: { pk: { S: `${EVENT_ITEM_PREFIX}${eventId}` }, applied: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return { status: 'applied' };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { status: 'duplicate' };
    throw error;
  }
}

/** The planted bug (ModelPlant): a read of the event's item, then an unconditional put when there was none. */
async function applyAfterACheck(dynamodb: DynamoDBClient, eventId: string): DirectResult {
  const key = { pk: { S: `${EVENT_ITEM_PREFIX}${eventId}` } };
  const found = await dynamodb.send(new GetItemCommand({ TableName: EFFECTS_TABLE, Key: key, ConsistentRead: true }));
  if (found.Item !== undefined) return { status: 'duplicate' };
  await dynamodb.send(new PutItemCommand({ TableName: EFFECTS_TABLE, Item: { ...key, applied: { N: '1' } } }));
  return { status: 'applied' };
}

/** The Lambda context of an invocation that starts with `remainingMs` left on the world's clock. */
export function invocationContext(world: World, remainingMs = FUNCTION_TIMEOUT_MS): Context {
  const startedAt = world.now;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'model',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:model',
    memoryLimitInMB: '256',
    awsRequestId: 'model-request',
    logGroupName: '/aws/lambda/model',
    logStreamName: 'model',
    getRemainingTimeInMillis: () => Math.max(0, remainingMs - (world.now - startedAt)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
