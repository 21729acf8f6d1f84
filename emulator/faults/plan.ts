/**
 * The demo's delivery faults, drawn batch by batch from a seeded random source: a duplicate
 * delivery, a crash after the commit and before the ack, a batch held past its visibility timeout.
 */
import type { DeliveryDecision, DeliveryFaults, MappingSource, Random } from '../types';
import { chance } from './random';

export interface DeliveryFaultRates {
  /** Share of batches delivered twice. */
  readonly duplicate: number;
  /** Share of batches whose invocation's response is lost (nothing acked or checkpointed). */
  readonly crash: number;
  /** Share of SQS batches held past their visibility timeout before the invocation. */
  readonly slow: number;
}

/** Rates must be shares. @throws RangeError naming the rate and its value */
export function checkRate(name: string, rate: number): number {
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new RangeError(`${name} must be between 0 and 1 (given ${rate})`);
  return rate;
}

/** Draws each batch's faults; counts what it decided. */
export class DeliveryFaultPlan implements DeliveryFaults {
  public readonly decided = { duplicate: 0, crash: 0, slow: 0 };

  public constructor(private readonly random: Random, private readonly rates: DeliveryFaultRates) {
    checkRate('duplicate rate', rates.duplicate);
    checkRate('crash rate', rates.crash);
    checkRate('slow rate', rates.slow);
  }

  public decide(batch: { readonly source: MappingSource; readonly size: number }): DeliveryDecision {
    const decision = {
      duplicate: chance(this.random, this.rates.duplicate),
      crashAfterInvoke: chance(this.random, this.rates.crash),
      outliveVisibility: batch.source === 'sqs' && chance(this.random, this.rates.slow),
    };
    if (decision.duplicate) this.decided.duplicate += 1;
    if (decision.crashAfterInvoke) this.decided.crash += 1;
    if (decision.outliveVisibility) this.decided.slow += 1;
    return decision;
  }
}
