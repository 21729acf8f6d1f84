/**
 * SDK middleware for tests: count the requests a client sends, and inject failures that no local
 * engine produces on demand (throttling, 5xx). The failure injection is a mock of the service's
 * answer, not of its semantics: everything that does reach the engine is real.
 */
import type { MetadataBearer, MiddlewareStack } from '@smithy/types';

/** Any AWS SDK v3 client. */
interface SdkClient<Input extends object, Output extends object> {
  readonly middlewareStack: MiddlewareStack<Input, Output>;
}

/** Counts of requests by command name; each HTTP attempt counts, SDK retries included. */
export interface RequestCounter {
  count(commandName: string): number;
  total(): number;
  reset(): void;
}

export function countRequests<Input extends object, Output extends object>(client: SdkClient<Input, Output>): RequestCounter {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
  return {
    count: (commandName) => counts.get(commandName) ?? 0,
    total: () => [...counts.values()].reduce((sum, value) => sum + value, 0),
    reset: () => counts.clear(),
  };
}

/** An error shaped like the AWS SDK's service errors. */
export function serviceError(name: string, httpStatusCode: number, message = name): Error & MetadataBearer {
  return Object.assign(new Error(message), { name, $fault: httpStatusCode >= 500 ? 'server' : 'client', $metadata: { httpStatusCode } });
}

export interface FaultRule {
  readonly commandName: string;
  /** Fail when this returns true for the command input. @default always */
  readonly when?: (input: Record<string, unknown>) => boolean;
  /** How many times to fail before letting requests through. @default Infinity */
  readonly times?: number;
  readonly error: () => Error;
}

/** How many requests a fault rule failed so far, and a switch to end "the outage". */
export interface FaultInjector {
  readonly failures: number;
  disable(): void;
}

/** Fails matching commands before they are sent (so the SDK does not retry them). */
export function injectFaults<Input extends object, Output extends object>(client: SdkClient<Input, Output>, rule: FaultRule): FaultInjector {
  const state = { failures: 0, enabled: true };
  const shouldFail = (commandName: string | undefined, input: Record<string, unknown>): boolean =>
    state.enabled && commandName === rule.commandName && state.failures < (rule.times ?? Infinity) && (rule.when?.(input) ?? true);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (shouldFail(context.commandName, args.input as Record<string, unknown>)) {
        state.failures += 1;
        throw rule.error();
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high' },
  );
  return {
    get failures() {
      return state.failures;
    },
    disable: () => {
      state.enabled = false;
    },
  };
}
