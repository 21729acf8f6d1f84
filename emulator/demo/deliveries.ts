/**
 * Counts what the functions were handed, by event identity, so that the report can say how many
 * deliveries were duplicates (a second delivery of something already delivered, however caused).
 */
import type { Invoker } from '../types';

interface LambdaEvent {
  Records?: { body?: string; kinesis?: { data: string }; eventID?: string; dynamodb?: unknown }[];
}

/** Records one function was handed, and how many of them it had been handed before. */
export interface DeliveryCount {
  total: number;
  duplicates: number;
}

export class DeliveryCounter {
  private readonly seen = new Set<string>();
  private readonly functions = new Map<string, DeliveryCount>();

  /** Records handed to any function. */
  public get total(): number {
    return this.sum('total');
  }

  /** Records handed again to a function that had been handed them before. */
  public get duplicates(): number {
    return this.sum('duplicates');
  }

  /** What one function was handed. */
  public of(functionLogicalId: string): DeliveryCount {
    return { ...(this.functions.get(functionLogicalId) ?? { total: 0, duplicates: 0 }) };
  }

  /** Wraps an invoker so that every record it delivers is counted. */
  public wrap(functionLogicalId: string, invoke: Invoker): Invoker {
    return (event, options) => {
      for (const record of (event as LambdaEvent).Records ?? []) this.count(functionLogicalId, `${functionLogicalId}:${identityOf(record)}`);
      return invoke(event, options);
    };
  }

  private count(functionLogicalId: string, identity: string): void {
    const own = this.functions.get(functionLogicalId) ?? { total: 0, duplicates: 0 };
    this.functions.set(functionLogicalId, own);
    own.total += 1;
    if (this.seen.has(identity)) own.duplicates += 1;
    else this.seen.add(identity);
  }

  private sum(field: keyof DeliveryCount): number {
    let sum = 0;
    for (const count of this.functions.values()) sum += count[field];
    return sum;
  }
}

/** The producer's eventId where the body has one; otherwise the raw body (poison) or the stream record id. */
function identityOf(record: NonNullable<LambdaEvent['Records']>[number]): string {
  const text = record.body ?? (record.kinesis ? Buffer.from(record.kinesis.data, 'base64').toString('utf8') : undefined);
  if (text === undefined) return `ddb:${record.eventID ?? JSON.stringify(record.dynamodb)}`;
  try {
    const eventId = (JSON.parse(text) as { eventId?: unknown }).eventId;
    return typeof eventId === 'string' ? `event:${eventId}` : `body:${text}`;
  } catch {
    return `body:${text}`;
  }
}
