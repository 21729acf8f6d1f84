/**
 * The queues EventBridge Scheduler sends the target calls it gave up on to (a schedule's
 * `Target.DeadLetterConfig.Arn`), as `SqlEffectDatabase`'s expiry of its dedup rows does: DLQs of
 * the stack, which its depth alarms watch, with the schedule as their source. Pure: the caller
 * resolves the template's values.
 */
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';

export interface ScheduleDlqLink {
  /** The DLQ's ARN, as the schedule names it. */
  readonly queueArn: string;
  /** The schedule's ARN; its logical id when the ARN does not resolve (a deployed stack's schedule is read by name only). */
  readonly scheduleArn: string;
}

/** One link per schedule with a dead-letter queue. */
export function scheduleDlqLinks(template: Template, resolve: TryResolve): ScheduleDlqLink[] {
  return resourcesOfType(template, ResourceType.SCHEDULE).flatMap(({ logicalId, properties }) => {
    const target = properties.Target as { DeadLetterConfig?: { Arn?: unknown } } | undefined;
    const queueArn = resolve(target?.DeadLetterConfig?.Arn);
    if (queueArn === undefined) return [];
    return [{ queueArn, scheduleArn: resolve({ 'Fn::GetAtt': [logicalId, 'Arn'] }) ?? logicalId }];
  });
}
