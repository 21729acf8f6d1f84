/**
 * The invariant of issue 39, item 1, for the `sql` strategy's runs: a batch is an optimisation,
 * never a semantics. Whatever the batches, faults and redeliveries, the state the run left, and
 * each event's outcome, are those of applying the events one at a time, in the order the run
 * decided them: on a fresh set of tables, the real strategy gets each decided event in a batch of
 * its own, with no fault, and must apply it where the run applied it and fail it, with the same
 * SQLSTATE, where the run dead-lettered it for a statement of its own; the tables must then hold
 * what the live ones hold.
 *
 * The order: invocation by invocation, and within one by the batch position of the record that
 * decided the event. Each group writes rows of its own (sql-ledger.ts), and the runtime applies a
 * run in its events' order, so that order within a group is the one that matters; on an ordered
 * source, `appliesInOrder` (invariants.ts) holds it to the publish order. An event that failed
 * left nothing, so only its last failure (the one dead-lettered) is a step; a failure later applied
 * by a redelivery or a producer's retry is a step where it applied.
 */
import { sqlStrategy } from '../../lambdas/runtime/stores/postgres/sql-strategy';
import type { SqlSession } from '../../lambdas/runtime/stores/postgres/session';
import type { SqlEffects } from '../../lambdas/runtime/stores/postgres/effects';
import { fromSqsRecord } from '../../lambdas/runtime/decoding/records';
import type { AcceptedEvent, Outcome } from '../../lambdas/runtime/consumer/strategy';
import { sqsRecord } from '../helpers/events';
import { CONSUMER } from './consumer';
import type { RunHistory } from './runner';
import { EVENT_TYPE } from './sources';
import { ledgerEffects, type LedgerState, type LedgerTables } from './sql-ledger';
import type { SqlModelStore } from './sql-store';

/** One event decided by the run: where, and how. */
export interface DecidedStep {
  readonly eventId: string;
  readonly event: number;
  readonly group: string;
  readonly invocation: number;
  /** `applied`, or `failed <SQLSTATE>`. */
  readonly outcome: string;
}

/**
 * The run's decisions in order: applications, and dead-lettered statement failures. Within an
 * invocation, applications go in the order they committed (`applied`), which is their batch order
 * but where a transaction's commit answer was lost: its retry finds the events it committed
 * applied, and applies those it had failed after them, in a later transaction (on a standard
 * queue, a withdrawal failed before a deposit, then applied after it, is one of the orders one at
 * a time allows). A failure goes just before the first application of its group that follows it
 * in the batch: the effects of a group touch its rows alone (sql-ledger.ts), so where it falls
 * among the other groups' applications, which ran beside it, decides nothing.
 */
export function decidedSteps(history: RunHistory): DecidedStep[] {
  return history.invocations.flatMap((record) => {
    const decided: { position: number; step: DecidedStep }[] = [];
    const at = (itemIdentifier: string) => record.records.findIndex((delivered) => delivered.itemIdentifier === itemIdentifier);
    const commitOrder = [...new Set(record.applied)];
    const appliedAt = commitOrder.map((eventId) => record.records.find((delivered) => delivered.eventId === eventId)).map((delivered) => ({ position: at(delivered?.itemIdentifier ?? ''), group: delivered?.group }));
    commitOrder.forEach((eventId, order) => {
      const primary = record.records.find((delivered) => delivered.eventId === eventId);
      if (primary !== undefined) decided.push({ position: order, step: { eventId, event: primary.event, group: primary.group, invocation: record.invocation, outcome: 'applied' } });
    });
    for (const wrapper of record.dlqSends.filter((sent) => sent.error.name === 'SqlStatementError')) {
      const delivered = record.records.find((candidate) => candidate.itemIdentifier === wrapper.source.itemIdentifier);
      const sqlState = /SQLSTATE ([0-9A-Z]{5})/.exec(wrapper.error.message)?.[1] ?? 'none';
      const next = appliedAt.findIndex((applied) => applied.group === delivered?.group && applied.position > at(wrapper.source.itemIdentifier));
      if (delivered !== undefined) decided.push({ position: (next === -1 ? commitOrder.length : next) - 0.5, step: { eventId: delivered.eventId, event: delivered.event, group: delivered.group, invocation: record.invocation, outcome: `failed ${sqlState}` } });
    }
    return decided.sort((a, b) => a.position - b.position).map(({ step }) => step);
  });
}

/** The run held to the one-at-a-time replay of its decisions; the violations as sentences. */
export async function oneAtATimeViolations(history: RunHistory, store: SqlModelStore): Promise<string[]> {
  const live = history.store.ledger;
  if (history.schedule.strategy !== 'sql' || live === undefined) return [];
  const steps = decidedSteps(history);
  const { result: outcomes, state } = await store.replay((session, tables) => replay(session, tables, history, steps));
  const differing = steps.flatMap((step, n) => (outcomes[n] === step.outcome ? [] : [`e${step.event} (${step.group}) was ${step.outcome} in invocation ${step.invocation}, but ${outcomes[n]} applied one at a time in the run's order`]));
  const labels = new Map(history.source.published.map((publication) => [publication.eventId, `e${publication.event}`]));
  const labelled = (line: string) => line.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32,}/g, (eventId) => labels.get(eventId) ?? eventId);
  return [...differing, ...stateDifferences(live, state).map(labelled)];
}

/** Each step's event alone in a batch of its own, through the real strategy, in order. */
async function replay(session: SqlSession, tables: LedgerTables, history: RunHistory, steps: readonly DecidedStep[]): Promise<string[]> {
  const strategy = sqlStrategy({ session, dedup: { table: tables.dedup, consumer: CONSUMER }, retry: { maxAttempts: 1 } });
  const ops = history.schedule.sql?.ops ?? [];
  const outcomes: string[] = [];
  for (const step of steps) {
    const effects = ledgerEffects(tables, step.eventId, step.group, ops[step.event % ops.length]!);
    const result = await strategy.apply([acceptedEvent(step, effects)], { ordered: true });
    outcomes.push(nameOf(result.get(0)));
  }
  return outcomes;
}

function acceptedEvent(step: DecidedStep, effects: SqlEffects): AcceptedEvent<SqlEffects> {
  const event = { eventId: step.eventId, type: EVENT_TYPE, occurredAt: '2026-12-01T00:00:00.000Z', source: 'model', payload: { key: step.group, seq: step.event } };
  return { index: 0, event, context: { record: fromSqsRecord(sqsRecord(event)) }, invoke: () => effects };
}

function nameOf(outcome: Outcome | undefined): string {
  if (outcome === undefined || outcome.status !== 'failed') return outcome?.status ?? 'no outcome';
  const error = outcome.error as { name?: string; sqlState?: string };
  return error.name === 'SqlStatementError' ? `failed ${error.sqlState ?? 'none'}` : `failed (${error.name ?? 'unknown'})`;
}

function stateDifferences(live: LedgerState, replayed: LedgerState): string[] {
  return (Object.keys(live) as (keyof LedgerState)[]).flatMap((table) => {
    const [got, wanted] = [live[table].join(' '), replayed[table].join(' ')];
    return got === wanted ? [] : [`the ${table} are [${got}], but one at a time in the run's order they are [${wanted}]`];
  });
}
