/**
 * The template's fan-out into its queues: SNS subscriptions (made on fauxqs, with their raw
 * delivery and filter policy, so that a publish reaches the queue as SNS delivers it) and
 * EventBridge rule targets (there is no EventBridge locally: `deliverEventBridgeEvent` puts an
 * event on the target queue as the rule would, without matching its pattern).
 *
 * AWS accepts a subscription or a target whose queue policy does not let the service send, and
 * then drops every delivery without a word to the publisher. Local mode decides each one against
 * the queue's policy from the template up front, makes only the allowed ones, and reports the
 * others (`refused`), so that a missing statement is seen before the first message goes missing.
 */
import { SubscribeCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { LOCAL_ACCOUNT_ID, type LocalClients } from '../engines';
import { authorizeServiceDelivery, type DeliveryVerdict, type RolePolicies, type Resolve } from '../iam';
import { resourcesOfType, ResourceType, type NamedResource, type Template } from '../../aws/cloudformation/template';
import { queueWithArn, type LocalQueue } from './provision';

export const SNS_SERVICE = 'sns.amazonaws.com';
export const EVENTBRIDGE_SERVICE = 'events.amazonaws.com';

/** An SNS subscription local mode made. */
export interface LocalSubscription {
  readonly logicalId: string;
  readonly topicArn: string;
  readonly queue: LocalQueue;
  readonly rawMessageDelivery: boolean;
}

/** An EventBridge rule's queue target, to which `deliverEventBridgeEvent` delivers. */
export interface LocalRuleTarget {
  readonly ruleLogicalId: string;
  readonly ruleArn: string;
  readonly queue: LocalQueue;
}

/** A subscription or target that AWS would accept and then never deliver through. */
export interface RefusedDelivery {
  /** The subscription's or the rule's logical id. */
  readonly logicalId: string;
  readonly service: string;
  readonly sourceArn: string;
  readonly queueArn: string;
  /** One line: who may not send where, and the fix. */
  readonly reason: string;
}

export interface FanOut {
  readonly subscriptions: readonly LocalSubscription[];
  readonly ruleTargets: readonly LocalRuleTarget[];
  readonly refused: readonly RefusedDelivery[];
}

export interface FanOutOptions {
  readonly template: Template;
  readonly queues: ReadonlyMap<string, LocalQueue>;
  readonly policies: RolePolicies;
  readonly resolve: Resolve;
  readonly clients: Pick<LocalClients, 'sns'>;
}

interface Delivery {
  readonly logicalId: string;
  readonly service: string;
  readonly sourceArn: string;
  readonly queue: LocalQueue;
}

/** Makes the template's allowed SNS subscriptions and lists its rule targets; reports the rest. */
export async function wireFanOut(options: FanOutOptions): Promise<FanOut> {
  const refused: RefusedDelivery[] = [];
  const allowed = (delivery: Delivery): boolean => {
    const refusal = refusalOf(delivery, options.policies);
    if (refusal) refused.push(refusal);
    return refusal === undefined;
  };
  const subscriptions: LocalSubscription[] = [];
  for (const resource of resourcesOfType(options.template, ResourceType.SUBSCRIPTION)) {
    const subscription = sqsSubscription(resource, options);
    if (subscription === undefined || !allowed({ logicalId: resource.logicalId, service: SNS_SERVICE, sourceArn: subscription.topicArn, queue: subscription.queue })) continue;
    await subscribe(options.clients, resource, subscription);
    subscriptions.push(subscription);
  }
  const ruleTargets = ruleQueueTargets(options).filter((target) => allowed({ logicalId: target.ruleLogicalId, service: EVENTBRIDGE_SERVICE, sourceArn: target.ruleArn, queue: target.queue }));
  return { subscriptions, ruleTargets, refused };
}

/**
 * Puts an EventBridge event (the JSON a rule delivers: `version`, `id`, `detail-type`, `source`,
 * `account`, `time`, `region`, `resources`, `detail`) on the rule's target queue, as EventBridge
 * sends it: the event JSON as the body, no message attributes.
 */
export async function deliverEventBridgeEvent(sqs: LocalClients['sqs'], target: LocalRuleTarget, event: Readonly<Record<string, unknown>>): Promise<void> {
  await sqs.send(new SendMessageCommand({ QueueUrl: target.queue.url, MessageBody: JSON.stringify(event) }));
}

function sqsSubscription(resource: NamedResource, options: FanOutOptions): LocalSubscription | undefined {
  if (resource.properties.Protocol !== 'sqs') return undefined;
  const queue = queueWithArn(options.queues, String(options.resolve(resource.properties.Endpoint)));
  if (queue === undefined) return undefined;
  return { logicalId: resource.logicalId, topicArn: String(options.resolve(resource.properties.TopicArn)), queue, rawMessageDelivery: resource.properties.RawMessageDelivery === true || resource.properties.RawMessageDelivery === 'true' };
}

async function subscribe(clients: Pick<LocalClients, 'sns'>, resource: NamedResource, subscription: LocalSubscription): Promise<void> {
  const attributes: Record<string, string> = {};
  if (subscription.rawMessageDelivery) attributes.RawMessageDelivery = 'true';
  if (resource.properties.FilterPolicy !== undefined) attributes.FilterPolicy = JSON.stringify(resource.properties.FilterPolicy);
  if (typeof resource.properties.FilterPolicyScope === 'string') attributes.FilterPolicyScope = resource.properties.FilterPolicyScope;
  await clients.sns.send(new SubscribeCommand({ TopicArn: subscription.topicArn, Protocol: 'sqs', Endpoint: subscription.queue.arn, Attributes: attributes }));
}

function ruleQueueTargets(options: FanOutOptions): LocalRuleTarget[] {
  return resourcesOfType(options.template, ResourceType.RULE).flatMap((rule) => {
    const targets = Array.isArray(rule.properties.Targets) ? (rule.properties.Targets as { Arn?: unknown }[]) : [];
    const ruleArn = String(options.resolve({ 'Fn::GetAtt': [rule.logicalId, 'Arn'] }));
    return targets.flatMap((target) => {
      const queue = queueWithArn(options.queues, String(options.resolve(target.Arn)));
      return queue ? [{ ruleLogicalId: rule.logicalId, ruleArn, queue }] : [];
    });
  });
}

function refusalOf(delivery: Delivery, policies: RolePolicies): RefusedDelivery | undefined {
  const verdict: DeliveryVerdict = authorizeServiceDelivery(policies.resourcePolicies, {
    service: delivery.service,
    accountId: LOCAL_ACCOUNT_ID,
    permission: { action: 'sqs:SendMessage', resource: delivery.queue.arn },
    context: { 'aws:SecureTransport': 'true', 'aws:SourceArn': delivery.sourceArn },
  });
  if (verdict.allowed) return undefined;
  const why = verdict.reason === 'explicit-deny' ? 'a Deny statement of its queue policy matches' : 'its queue policy has no statement that allows it';
  return {
    logicalId: delivery.logicalId,
    service: delivery.service,
    sourceArn: delivery.sourceArn,
    queueArn: delivery.queue.arn,
    reason: `${delivery.service} may not send ${delivery.sourceArn}'s messages to ${delivery.queue.name} (${why}); AWS would accept ${delivery.logicalId} and drop every delivery. Allow sqs:SendMessage to the ${delivery.service} principal with aws:SourceArn ${delivery.sourceArn} in the queue policy (QueueConsumer.subscribeTo and addEventBridgeRule add it)`,
  };
}
