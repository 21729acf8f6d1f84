/**
 * Counts what the functions were handed, by event identity, so that the report can say how many
 * deliveries were duplicates (a second delivery of something already delivered, however caused).
 */
import type { Invoker } from '../types';

interface LambdaEvent {
  Records?: { body?: string; kinesis?: { data: string }; eventID?: string; dynamodb?: unknown }[];
}

export class DeliveryCounter {
  private readonly seen = new Set<string>();
  public total = 0;
  public duplicates = 0;

  /** Wraps an invoker so that every record it delivers is counted. */
  public wrap(functionLogicalId: string, invoke: Invoker): Invoker {
    return (event) => {
      for (const record of (event as LambdaEvent).Records ?? []) this.count(`${functionLogicalId}:${identityOf(record)}`);
      return invoke(event);
    };
  }

  private count(identity: string): void {
    this.total += 1;
    if (this.seen.has(identity)) this.duplicates += 1;
    else this.seen.add(identity);
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
