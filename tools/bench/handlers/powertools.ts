/**
 * `powertools`: the peer, as Powertools' docs tell its users to build an idempotent SQS consumer:
 * its own `BatchProcessor` and `processPartialResponse` (records of a batch processed concurrently,
 * `processInParallel` left at its default), each record made idempotent with `makeIdempotent` and
 * a `DynamoDBPersistenceLayer`, the Lambda context registered on the config at every invocation.
 * None of our consumer runs here. The key is the envelope's `eventId` (DESIGN: never `messageId`,
 * which a producer's retry changes), read from the body with Powertools' own `powertools_json`.
 *
 * Per new event: a conditional put of the idempotency record, the effect's `UpdateItem`s, and an
 * update of the record to COMPLETED. A redelivery costs the conditional put, which fails and
 * returns the stored record. Two copies of one event in one batch run at once: the second finds
 * the first's record in progress and fails, and SQS redelivers it (the bench does so at once).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { sharedClients, type BatchHandler, type Effect } from '../../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../../example/handlers/page-view-counter';
import { applyIncrements, pageViewPayload, tablesFromEnv, type BenchWiring } from './common';

/** What the bench's JSON says of the peer it ran. */
export interface PeerDescription {
  readonly package: string;
  readonly version: string;
  readonly processor: string;
  readonly processInParallel: boolean;
}

const PEER_PACKAGE = '@aws-lambda-powertools/batch';

/** The peer as this module builds it; the version is the installed package's. */
export function describePeer(): PeerDescription {
  return { package: PEER_PACKAGE, version: installedVersion(PEER_PACKAGE), processor: BatchProcessor.name, processInParallel: true };
}

/** The package's own package.json, found above its entry point (its `exports` map hides the file). */
function installedVersion(name: string): string {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === name && manifest.version) return manifest.version;
  }
  throw new Error(`${name}: no package.json with its version above ${require.resolve(name)}`);
}

/** What one peer consumer counts, and the name that prefixes its idempotency records. */
export interface PeerOptions {
  readonly name: string;
  /** The effects of one page view. */
  readonly effectsOf: (pageId: string, occurredAt: string, eventId: string) => Effect[];
}

/** One execution environment's handler: the processor, store and config live as long as it does, as in the docs. */
export function createPeerHandler(wiring: BenchWiring, options: PeerOptions): BatchHandler {
  const processor = new BatchProcessor(EventType.SQS);
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: wiring.idempotencyTable, awsSdkV3Client: wiring.dynamodb });
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).eventId', throwOnNoIdempotencyKey: true });
  const countRecord = async (record: SQSRecord): Promise<{ counted: true }> => {
    const event = pageViewOf(record);
    await applyIncrements(wiring.dynamodb, options.effectsOf(event.pageId, event.occurredAt, event.eventId), event.eventId);
    return { counted: true };
  };
  const recordHandler = makeIdempotent(countRecord, { persistenceStore, config, keyPrefix: options.name });
  return async (event, context) => {
    // Powertools bounds the in-progress lock by the invocation's remaining time, read from here.
    if (!context) throw new TypeError('the peer needs the Lambda context (Lambda always passes one)');
    config.registerLambdaContext(context);
    return processPartialResponse(event, recordHandler, processor, { context });
  };
}

interface PageView {
  readonly eventId: string;
  readonly pageId: string;
  readonly occurredAt: string;
}

/** The envelope's fields the count needs; anything else is the record's failure, as in the docs' record handlers. */
function pageViewOf(record: SQSRecord): PageView {
  const envelope = JSON.parse(record.body) as { eventId?: unknown; type?: unknown; occurredAt?: unknown; payload?: unknown };
  if (envelope.type !== PAGE_VIEWED) throw new TypeError(`not a ${PAGE_VIEWED} event: ${String(envelope.type)}`);
  if (typeof envelope.eventId !== 'string' || typeof envelope.occurredAt !== 'string') throw new TypeError('the envelope needs eventId and occurredAt');
  return { eventId: envelope.eventId, occurredAt: envelope.occurredAt, pageId: pageViewPayload.parse(envelope.payload).pageId };
}

/** The bench's `powertools` strategy: the page-view counter's effects, unsharded. */
export function createPowertoolsHandler(wiring: BenchWiring): BatchHandler {
  return createPeerHandler(wiring, { name: 'bench-powertools', effectsOf: (pageId, occurredAt) => pageViewEffects(wiring.countersTable, pageId, occurredAt) });
}

let fromEnv: BatchHandler | undefined;

export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createPowertoolsHandler({ ...tablesFromEnv(), dynamodb: sharedClients().dynamodb });
  return fromEnv(event, context);
};
