/**
 * EventBridge Scheduler's schedules that call the Data API's `ExecuteStatement` themselves (the
 * universal target `arn:<partition>:scheduler:::aws-sdk:rdsdata:executeStatement`, as
 * `SqlEffectDatabase` deletes expired dedup rows): local mode runs each one's `Input` on its
 * `rate(...)`, compressed by the stack's time scale, through the Data API gateway. A call that
 * still fails after the schedule's retries goes to its `DeadLetterConfig` queue, its body the
 * input, with the error's code and message as attributes. Other schedules are listed as not run.
 */
import { ExecuteStatementCommand, type ExecuteStatementCommandInput, type RDSDataClient } from '@aws-sdk/client-rds-data';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { dataApiClient, type ClientCredentials } from '../engines/clients';
import { queueWithArn, type LocalQueue } from './provision';
import { resolveString, resolveValue, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import { ResourceType, resourcesOfType, type NamedResource, type Template } from '../../aws/cloudformation/template';
import type { SkippedAwsCall } from './sql-clusters';

/** The universal target's ARN after its partition. */
const EXECUTE_STATEMENT_TARGET = /^arn:[a-z-]+:scheduler:::aws-sdk:rdsdata:executeStatement$/;

/** Scheduler's default retries when the template gives none ("RetryPolicy", EventBridge Scheduler API reference). */
const DEFAULT_RETRY_ATTEMPTS = 185;

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const UNIT_SECONDS: Readonly<Record<string, number>> = { minute: 60, minutes: 60, hour: 3600, hours: 3600, day: 86_400, days: 86_400 };

/** The shortest local interval, however compressed. */
const MIN_INTERVAL_MS = 250;

/** The schedules running, and those not run with why. */
export interface LocalSchedules {
  readonly running: readonly string[];
  readonly skipped: readonly SkippedAwsCall[];
  stop(): Promise<void>;
}

/** Where the schedules send: the Data API gateway, and SQS for their dead-letter queues. */
export interface ScheduleOptions {
  readonly template: Template;
  readonly context: ResolveContext;
  readonly timeScale: number;
  readonly dataApiEndpoint: string | undefined;
  readonly sqs: SQSClient;
  readonly queues: ReadonlyMap<string, LocalQueue>;
  /** What a schedule signs with, by its logical id: its target role's credentials. @default - the local administrator's, which IAM does not decide */
  readonly credentialsOf?: (logicalId: string) => ClientCredentials | undefined;
}

interface Statement {
  readonly logicalId: string;
  readonly intervalMs: number;
  /** The template's `Input`, resolved: the dead-lettered message's body. */
  readonly input: string;
  /** The same, as the client's command takes it. */
  readonly command: ExecuteStatementCommandInput;
  readonly retries: number;
  readonly dlqUrl?: string;
  readonly credentials?: ClientCredentials;
}

/** Starts every enabled schedule local mode can run; the others are `skipped`. */
export function startSchedules(options: ScheduleOptions): LocalSchedules {
  const statements: Statement[] = [];
  const skipped: SkippedAwsCall[] = [];
  for (const schedule of resourcesOfType(options.template, ResourceType.SCHEDULE)) {
    const read = readSchedule(schedule, options);
    if ('reason' in read) skipped.push(read);
    else statements.push(read);
  }
  if (statements.length === 0 || options.dataApiEndpoint === undefined) {
    return { running: [], skipped: [...skipped, ...statements.map((statement) => ({ logicalId: statement.logicalId, reason: 'the stack has no cluster local mode serves' }))], stop: async () => undefined };
  }
  const endpoint = options.dataApiEndpoint;
  // Each schedule calls as its own role, as Scheduler assumes the target's role for each run.
  const clients = statements.map((statement) => dataApiClient(endpoint, statement.credentials));
  const timers = statements.map((statement, index) => setInterval(() => void invoke(statement, clients[index] as RDSDataClient, options.sqs), statement.intervalMs));
  for (const timer of timers) timer.unref();
  return {
    running: statements.map((statement) => statement.logicalId),
    skipped,
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const client of clients) client.destroy();
    },
  };
}

function readSchedule(schedule: NamedResource, options: ScheduleOptions): Statement | SkippedAwsCall {
  const props = schedule.properties;
  const target = (props.Target ?? {}) as { Arn?: unknown; Input?: unknown; RetryPolicy?: { MaximumRetryAttempts?: unknown }; DeadLetterConfig?: { Arn?: unknown } };
  const skip = (reason: string): SkippedAwsCall => ({ logicalId: schedule.logicalId, reason });
  if (props.State === 'DISABLED') return skip('it is disabled');
  try {
    const arn = resolveString(target.Arn, options.context);
    if (!EXECUTE_STATEMENT_TARGET.test(arn)) return skip(`local mode runs only the Data API's executeStatement target, not ${arn}`);
    const rate = RATE.exec(String(resolveValue(props.ScheduleExpression, options.context)));
    if (!rate) return skip(`local mode runs only rate(...) expressions, not ${String(props.ScheduleExpression)}`);
    const seconds = Number(rate[1]) * (UNIT_SECONDS[rate[2] as string] as number);
    const dlqArn = target.DeadLetterConfig?.Arn === undefined ? undefined : resolveString(target.DeadLetterConfig.Arn, options.context);
    const input = resolveString(target.Input, options.context);
    return {
      logicalId: schedule.logicalId,
      intervalMs: Math.max(MIN_INTERVAL_MS, Math.round(seconds * 1000 * options.timeScale)),
      input,
      command: camelCased(JSON.parse(input) as Record<string, unknown>) as unknown as ExecuteStatementCommandInput,
      retries: Number(target.RetryPolicy?.MaximumRetryAttempts ?? DEFAULT_RETRY_ATTEMPTS),
      dlqUrl: queueWithArn(options.queues, dlqArn)?.url,
      credentials: options.credentialsOf?.(schedule.logicalId),
    };
  } catch (error) {
    return skip(`it does not resolve locally (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** One run of the schedule: the call, its retries, then the dead-letter queue. */
async function invoke(statement: Statement, client: RDSDataClient, sqs: SQSClient): Promise<void> {
  let failure: unknown;
  for (let attempt = 0; attempt <= statement.retries; attempt++) {
    try {
      await client.send(new ExecuteStatementCommand(statement.command));
      return;
    } catch (error) {
      failure = error;
    }
  }
  if (statement.dlqUrl === undefined) return;
  const { name, message } = failure as { name?: string; message?: string };
  await sqs.send(new SendMessageCommand({
    QueueUrl: statement.dlqUrl,
    MessageBody: statement.input,
    MessageAttributes: { ERROR_CODE: { DataType: 'String', StringValue: name ?? 'Error' }, ERROR_MESSAGE: { DataType: 'String', StringValue: message || '(none)' } },
  })).catch(() => undefined);
}

/** The universal target's input names the SDK's fields in PascalCase (`ResourceArn`); the v3 client takes camelCase. */
function camelCased(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [`${key.charAt(0).toLowerCase()}${key.slice(1)}`, value]));
}
