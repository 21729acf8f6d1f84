/**
 * EventBridge Scheduler's schedules that run a statement on a database through the RDS Data API
 * themselves (the universal target `arn:<partition>:scheduler:::aws-sdk:rdsdata:executeStatement`,
 * as `SqlEffectDatabase` deletes expired dedup rows): what they run, on which cluster, how often,
 * and where a run that failed after its retries goes. Read from the schedule's `Target`.
 */
import { sqlDedupExpiryStatement } from '../../aws/sql-dedup-table';
import { markedIds, ofType, referenced, textWithMarkers, type Resource } from './resources';

/** A schedule that runs a Data API statement on a cluster of the template. */
export interface ScheduleView {
  readonly schedule: Resource;
  /** How often it runs, as the page says it: `every 1 hour`, or the expression itself. */
  readonly when: string;
  /** The cluster its input's `ResourceArn` names. */
  readonly database: Resource;
  /** What its statement does, as the edge to the cluster says it: `deletes expired dedup rows`. */
  readonly action: string;
  /** Its `DeadLetterConfig` queue: where a run goes that still failed after the retries. */
  readonly dlq?: Resource;
}

const SCHEDULE_TYPE = 'AWS::Scheduler::Schedule';
const CLUSTER_TYPE = 'AWS::RDS::DBCluster';
const QUEUE_TYPE = 'AWS::SQS::Queue';

/** The universal target's ARN, its partition a marker (`{{AWS::Partition}}`) or a name. */
const EXECUTE_STATEMENT_TARGET = /^arn:(?:\{\{AWS::Partition\}\}|[a-z-]+):scheduler:::aws-sdk:rdsdata:executeStatement$/;

const RATE = /^rate\((\d+ \w+)\)$/;

/** The input of an `executeStatement` target, as the Data API names its fields. */
interface StatementInput {
  readonly ResourceArn?: unknown;
  readonly Sql?: unknown;
}

/** The Data API schedules of a template that run on one of its clusters, by path; other schedules are not drawn. */
export function dataApiSchedules(resources: ReadonlyMap<string, Resource>): ScheduleView[] {
  return ofType(resources, SCHEDULE_TYPE).flatMap((schedule) => {
    const view = scheduleView(schedule, resources);
    return view ? [view] : [];
  });
}

function scheduleView(schedule: Resource, resources: ReadonlyMap<string, Resource>): ScheduleView | undefined {
  const target = (schedule.properties.Target ?? {}) as { Arn?: unknown; Input?: unknown; DeadLetterConfig?: { Arn?: unknown } };
  if (!EXECUTE_STATEMENT_TARGET.test(textWithMarkers(target.Arn, resources) ?? '')) return undefined;
  const input = statementInput(textWithMarkers(target.Input, resources));
  const database = typeof input?.ResourceArn === 'string' ? clusterIn(input.ResourceArn, resources) : undefined;
  if (database === undefined) return undefined;
  const dlq = referenced(target.DeadLetterConfig?.Arn, resources);
  return {
    schedule,
    when: describeExpression(schedule.properties.ScheduleExpression),
    database,
    action: describeStatement(input?.Sql),
    ...(dlq?.type === QUEUE_TYPE && { dlq }),
  };
}

/** The input's JSON, its references left as markers; undefined when it is not a JSON object. */
function statementInput(text: string | undefined): StatementInput | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StatementInput) : undefined;
  } catch {
    return undefined;
  }
}

/** The one cluster of the template that an ARN's markers name. */
function clusterIn(arn: string, resources: ReadonlyMap<string, Resource>): Resource | undefined {
  const clusters = [...new Set(markedIds(arn))].map((id) => resources.get(id)).filter((resource) => resource?.type === CLUSTER_TYPE);
  return clusters.length === 1 ? clusters[0] : undefined;
}

/** `rate(1 hour)` as `every 1 hour`; a `cron(...)` or `at(...)` expression as it is. */
export function describeExpression(expression: unknown): string {
  if (typeof expression !== 'string') return 'on a schedule';
  const rate = RATE.exec(expression);
  return rate ? `every ${rate[1] as string}` : expression;
}

/**
 * What a statement does: the dedup table's expiry (the statement `SqlEffectDatabase` schedules,
 * recognized by writing it again for the table it deletes from), or its first keyword.
 */
export function describeStatement(sql: unknown): string {
  if (typeof sql !== 'string' || sql.trim() === '') return 'runs a statement';
  const table = /^DELETE FROM ((?:"\w+"\.)?"\w+") /.exec(sql)?.[1]?.replace(/"/g, '');
  if (table !== undefined && isExpiryOf(table, sql)) return 'deletes expired dedup rows';
  return `runs ${(sql.trim().split(/\s+/)[0] as string).toUpperCase()}`;
}

function isExpiryOf(table: string, sql: string): boolean {
  try {
    return sqlDedupExpiryStatement(table) === sql;
  } catch {
    return false;
  }
}
