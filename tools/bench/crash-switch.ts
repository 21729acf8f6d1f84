/**
 * A crash inside an invocation, made with SDK middleware on the handler's DynamoDB client: once
 * armed, the first request the crash point matches is not sent, and from then on no request is
 * sent at all, as if the process had died there. Requests already on the wire complete (DynamoDB
 * may apply a request whose caller died); records processed concurrently are cut off wherever they
 * were. Invocations must run one at a time on the client: the switch knows no invocation ids.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyRecordStatus } from '@aws-lambda-powertools/idempotency';

/** What a request of a dead invocation fails with; it never reaches the network. */
export class InvocationCrashedError extends Error {
  public constructor(command: string) {
    super(`the invocation crashed: ${command} was not sent`);
    this.name = 'InvocationCrashedError';
  }
}

/** Recognises the request before which the invocation dies, by its command name and input. */
export type CrashPointMatcher = (command: string, input: Readonly<Record<string, unknown>>) => boolean;

/** The switch of one client: armed for a crashing invocation, reset after each. */
export interface CrashSwitch {
  /** The current invocation dies at the next request the crash point matches. */
  arm(): void;
  /** True once the armed invocation has died. */
  readonly died: boolean;
  /** Disarms and revives the client, for the next invocation. */
  reset(): void;
}

/** Adds the switch to `client`; it stays inert until armed. */
export function installCrashSwitch(client: DynamoDBClient, isCrashPoint: CrashPointMatcher): CrashSwitch {
  let armed = false;
  let died = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      if (!died && armed && isCrashPoint(command, args.input as Record<string, unknown>)) died = true;
      if (died) throw new InvocationCrashedError(command);
      return next(args);
    },
    // Before serialization and the retry middleware: a dead process neither sends nor retries.
    { step: 'initialize', priority: 'high', name: 'benchCrashSwitch' },
  );
  return {
    arm: () => {
      armed = true;
    },
    get died() {
      return died;
    },
    reset: () => {
      armed = false;
      died = false;
    },
  };
}

/**
 * The update that marks a Powertools idempotency record COMPLETED in `idempotencyTable`: an
 * `UpdateItem` whose values set the status to COMPLETED (Powertools' `_updateRecord`, after the
 * record's work succeeded). Dying before it leaves the record INPROGRESS with the effect applied.
 */
export function marksIdempotencyRecordCompleted(idempotencyTable: string): CrashPointMatcher {
  return (command, input) => {
    if (command !== 'UpdateItemCommand' || input.TableName !== idempotencyTable) return false;
    const values = Object.values((input.ExpressionAttributeValues ?? {}) as Record<string, { S?: string } | undefined>);
    return values.some((value) => value?.S === IdempotencyRecordStatus.COMPLETED);
  };
}
