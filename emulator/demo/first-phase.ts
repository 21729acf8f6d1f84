/**
 * The report of the first drain: what was published, delivered and injected, and the invariants
 * checked on everything that does not wait in a DLQ for the redrive (pending.ts).
 */
import { CONSUMER_NAME as COUNTER_CONSUMER } from '../../example/handlers/page-view-counter';
import type { SqsMappingStats, StreamMappingStats } from '../event-sources';
import type { DeliveryFaultPlan } from '../faults/plan';
import type { LocalStack } from '../stack/runtime';
import type { DeliveryCounter } from './deliveries';
import { expectedState } from './expected';
import type { PendingRedrive } from './pending';
import type { PublishedMessage } from './publisher';
import { dlqAlarmNames, holdsMessages } from './redrive-phase';
import { failedSentences, invariantsOf, type DemoReport } from './report';
import type { FinalState } from './state';
import { isApplied, verify } from './verify';
import type { WorkloadEvent } from './workload';

export interface FirstPhaseInput {
  readonly seed: number;
  readonly workload: readonly WorkloadEvent[];
  readonly messages: readonly PublishedMessage[];
  readonly state: FinalState;
  readonly pending: PendingRedrive;
  readonly stack: LocalStack;
  readonly deliveries: DeliveryCounter;
  readonly faults: DeliveryFaultPlan;
  readonly started: number;
}

type AnyMappingStats = Partial<SqsMappingStats & StreamMappingStats>;

/** The report as the first drain leaves things; the redrive phase adds its section and violations. */
export function firstPhaseReport(input: FirstPhaseInput): DemoReport {
  const { workload, messages, state, stack, pending } = input;
  const waiting = (event: WorkloadEvent): boolean => event.envelope !== undefined && pending.eventIds.has(event.envelope.eventId) && !isApplied(event, state, COUNTER_CONSUMER);
  const expected = expectedState(workload, { skip: waiting });
  const verification = verify({ expected, state, published: messages, counterConsumer: COUNTER_CONSUMER, dlqEverNonEmpty: holdsMessages(state), dlqAlarmNames: dlqAlarmNames(stack), pendingNotifications: pending.shippedOrders });
  const durationMs = Date.now() - input.started;
  const invariants = invariantsOf(verification);
  return {
    seed: input.seed,
    published: {
      logicalEvents: workload.length,
      messages: messages.length,
      producerRetries: messages.filter((message) => message.retry).length,
      poison: messages.filter((message) => message.event.kind === 'poison').length,
    },
    deliveries: { total: input.deliveries.total, duplicates: input.deliveries.duplicates },
    faults: faultCounts(stack, input.faults),
    effects: verification.effects,
    notifications: { expected: verification.notifications.expected, sent: verification.notifications.sent, missing: verification.notifications.missing, pending: verification.notifications.pending },
    dlq: { messages: verification.dlq.messages, withContext: verification.dlq.withContext, appliedWithoutContext: verification.dlq.appliedWithoutContext, copiesOfDeadLettered: verification.dlq.copiesOfDeadLettered },
    waitingForRedrive: new Set(workload.filter(waiting).map((event) => event.envelope?.eventId)).size,
    lost: verification.lost,
    alarms: { notifications: verification.alarms.notifications },
    durationMs,
    eventsPerSecond: Math.round((workload.length / durationMs) * 1000),
    violations: failedSentences(invariants),
    invariants,
  };
}

function faultCounts(stack: LocalStack, faults: DeliveryFaultPlan): DemoReport['faults'] {
  const stats = stack.mappings.map((spec) => spec.mapping.stats as AnyMappingStats);
  const sum = (pick: (s: AnyMappingStats) => number | undefined) => stats.reduce((total, s) => total + (pick(s) ?? 0), 0);
  return {
    crashAfterCommit: sum((s) => s.crashes),
    visibilityExpired: sum((s) => s.visibilityOutlived),
    throttled: stack.proxy.stats().throttled,
    serverErrors: stack.proxy.stats().serverErrors,
    serializationFailures: stack.sql?.serializationFailuresInjected() ?? 0,
    duplicateBatches: faults.decided.duplicate,
  };
}
