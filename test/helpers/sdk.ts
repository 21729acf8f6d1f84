/**
 * SDK middleware for tests: count the requests a client sends, and inject failures that no local
 * engine produces on demand (throttling, 5xx). The failure injection is a mock of the service's
 * answer, not of its semantics: everything that does reach the engine is real.
 */
import type { MetadataBearer } from '@smithy/types';

interface MiddlewareClient {
  middlewareStack: {
    add: (middleware: never, options: { step: 'finalizeRequest' | 'initialize'; priority?: 'low' | 'high'; name?: string }) => void;
  };
}

/** Counts of requests by command name; each HTTP attempt counts, SDK retries included. */
export class RequestCounter {
  private readonly counts = new Map<string, number>();

  public constructor(client: MiddlewareClient) {
    const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const name = context.commandName ?? 'unknown';
      this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
      return next(args);
    };
    client.middlewareStack.add(middleware as never, { step: 'finalizeRequest', priority: 'low' });
  }

  public count(commandName: string): number {
    return this.counts.get(commandName) ?? 0;
  }

  public total(): number {
    return [...this.counts.values()].reduce((sum, value) => sum + value, 0);
  }

  public reset(): void {
    this.counts.clear();
  }
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

/** Fails matching commands before they are sent. Returns how many it failed so far. */
export class FaultInjector {
  private failed = 0;
  private enabled = true;

  public constructor(client: MiddlewareClient, private readonly rule: FaultRule) {
    const middleware = (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
      if (this.shouldFail(context.commandName, args.input)) {
        this.failed += 1;
        throw rule.error();
      }
      return next(args);
    };
    client.middlewareStack.add(middleware as never, { step: 'initialize', priority: 'high' });
  }

  public get failures(): number {
    return this.failed;
  }

  /** Stops injecting, e.g. once "the outage is over". */
  public disable(): void {
    this.enabled = false;
  }

  private shouldFail(commandName: string | undefined, input: Record<string, unknown>): boolean {
    if (!this.enabled || commandName !== this.rule.commandName) return false;
    if (this.failed >= (this.rule.times ?? Infinity)) return false;
    return this.rule.when?.(input) ?? true;
  }
}
