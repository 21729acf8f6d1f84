/**
 * The consumer under test, with everything around it faked: an in-memory strategy that decides
 * each event's outcome from its page id, a real `DlqSender` over a fake SQS client that records
 * commands (or throws), and a recording, silent Observability, so that what is under test is the
 * runtime's behaviour, not SQS's, and nothing reaches stdout.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { Context } from 'aws-lambda';
import { createConsumer, type BatchEvent, type BatchResponse, type ConsumerOptions } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { PermanentError } from '../../../../lambdas/runtime/core/errors';
import type { FailureEnvelope } from '../../../../aws/dlq-format';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route, type ConsumedEvent, type Routes } from '../../../../lambdas/runtime/decoding/routes';
import type { AcceptedEvent, Outcome, Strategy } from '../../../../lambdas/runtime/consumer/strategy';
import { asClient, awsError, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

export const NOW = new Date('2026-11-30T12:00:00.000Z');
export const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';

/** Page ids that make the fake strategy fail or skip; any other page id is applied. */
export const THROTTLED = 'throttled';
export const DECLINED = 'declined';
export const STALE = 'stale';

export function pageIdOf(event: ConsumedEvent<unknown>): string {
  const payload = event.payload as { pageId?: string; newImage?: { pageId?: string } };
  return payload.pageId ?? payload.newImage?.pageId ?? '';
}

function outcomeFor(event: ConsumedEvent<unknown>): Outcome {
  switch (pageIdOf(event)) {
    case THROTTLED:
      return { status: 'failed', error: awsError('ProvisionedThroughputExceededException', 400) };
    case DECLINED:
      return { status: 'failed', error: new PermanentError('the effect can never apply') };
    case STALE:
      return { status: 'skipped', reason: 'older version' };
    default:
      return { status: 'applied' };
  }
}

/** A strategy that records what it was given and decides outcomes with `outcomeFor`. */
export class FakeStrategy implements Strategy<string> {
  public readonly calls: { events: ConsumedEvent<unknown>[]; ordered: boolean }[] = [];
  public readonly handled: string[] = [];

  public async apply(events: readonly AcceptedEvent<string>[], run: { readonly ordered: boolean }): Promise<Map<number, Outcome>> {
    this.calls.push({ events: events.map((accepted) => accepted.event), ordered: run.ordered });
    return new Map(events.map((accepted) => {
      this.handled.push(accepted.invoke());
      return [accepted.index, outcomeFor(accepted.event)];
    }));
  }

  public get seen(): ConsumedEvent<unknown>[] {
    return this.calls.flatMap((call) => call.events);
  }
}

export const ROUTES: Routes<string> = {
  'page.viewed': route(z.object({ pageId: z.string().min(1) }), (event) => `page ${event.payload.pageId}`),
  'dynamodb.MODIFY': route(z.object({ newImage: z.object({ pageId: z.string() }) }), (event) => `change ${event.payload.newImage.pageId}`),
};

export interface Harness {
  readonly handle: (event: BatchEvent) => Promise<string[]>;
  /** The whole response, for a call with a Lambda context. */
  readonly respond: (event: BatchEvent, context?: Context) => Promise<BatchResponse>;
  readonly strategy: FakeStrategy;
  readonly dlqClient: FakeClient;
  readonly observability: ReturnType<typeof recordingObservability>;
  /** The wrappers the DLQ received, parsed. */
  readonly dlqMessages: () => FailureEnvelope[];
}

export function harness(source: SourceKind, options: Partial<ConsumerOptions<string>> & { dlqClient?: FakeClient; withoutDlq?: boolean } = {}): Harness {
  const strategy = new FakeStrategy();
  const dlqClient = options.dlqClient ?? new FakeClient(() => ({ MessageId: 'dlq-msg' }));
  const observability = recordingObservability();
  const consumer = createConsumer<string>({
    name: 'test-consumer',
    source,
    routes: ROUTES,
    strategy,
    dlq: options.withoutDlq ? undefined : new DlqSender(asClient<SQSClient>(dlqClient), DLQ_URL, { sleep: noSleep }),
    observability,
    now: () => NOW,
    ...options,
  });
  return {
    handle: async (event) => (await consumer(event)).batchItemFailures.map((failure) => failure.itemIdentifier),
    respond: (event, context) => consumer(event, context),
    strategy,
    dlqClient,
    observability,
    dlqMessages: () => dlqClient.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope),
  };
}

