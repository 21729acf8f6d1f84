/**
 * Counts what a strategy asks of DynamoDB: every HTTP attempt (SDK retries included) with its
 * command, input and outcome, recorded by SDK middleware. Capacity is priced afterwards
 * (`capacity.ts`), so that the meter adds next to nothing to the time it measures.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import diagnostics from 'node:diagnostics_channel';

/** How a request ended: condition failures and cancellations still consume capacity. */
export type CallOutcome = 'ok' | 'condition-failed' | 'cancelled' | 'error';

export interface MeteredCall {
  /** e.g. `TransactWriteItemsCommand`. */
  readonly command: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly outcome: CallOutcome;
}

/** The calls made since the last `reset`. */
export interface RequestMeter {
  readonly calls: readonly MeteredCall[];
  reset(): void;
}

/** Records every request `client` sends from now on. */
export function meterRequests(client: DynamoDBClient): RequestMeter {
  let calls: MeteredCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const input = args.input as Record<string, unknown>;
      try {
        const result = await next(args);
        calls.push({ command, input, outcome: 'ok' });
        return result;
      } catch (error) {
        calls.push({ command, input, outcome: outcomeOf(error) });
        throw error;
      }
    },
    // Inside the retry middleware, so that each attempt is counted.
    { step: 'finalizeRequest', priority: 'low', name: 'benchRequestMeter' },
  );
  return {
    get calls() {
      return calls;
    },
    reset: () => {
      calls = [];
    },
  };
}

function outcomeOf(error: unknown): CallOutcome {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'ConditionalCheckFailedException') return 'condition-failed';
  if (name === 'TransactionCanceledException') return 'cancelled';
  return 'error';
}

/** Counts TCP connections opened by this process: with keep-alive, a run opens a handful, not one per request. */
export interface ConnectionCounter {
  readonly opened: number;
  reset(): void;
  close(): void;
}

export function countConnections(): ConnectionCounter {
  let opened = 0;
  const onSocket = (): void => {
    opened += 1;
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return {
    get opened() {
      return opened;
    },
    reset: () => {
      opened = 0;
    },
    close: () => diagnostics.unsubscribe('net.client.socket', onSocket),
  };
}
