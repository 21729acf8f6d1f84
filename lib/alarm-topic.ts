import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { addEncryptedTopic } from './encrypted-topic';
import { checkPattern } from './validation';

/** The shape an email address must have: something, an at sign, a domain with a dot. */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const CLOUDWATCH = new ServicePrincipal('cloudwatch.amazonaws.com');

/** The sender name of the alarm emails, unless the props give one. */
const DEFAULT_DISPLAY_NAME = 'effectively-once alarms';

/** Props of {@link AlarmTopic}. */
export interface AlarmTopicProps {
  /**
   * An address that receives the alarms by email. AWS sends it a confirmation message first.
   * @default - no subscription
   */
  readonly email?: string;
  /**
   * The topic's display name (the sender name of the email notifications).
   * @default 'effectively-once alarms' (`DEFAULT_DISPLAY_NAME`)
   */
  readonly displayName?: string;
}

/**
 * The SNS topic that every alarm of the pipeline notifies. It is encrypted with a
 * customer-managed key because CloudWatch cannot publish to a topic encrypted with `aws/sns`:
 * the key policy and the topic policy both let CloudWatch alarms of this account in.
 */
export class AlarmTopic extends Construct {
  /** The topic. */
  public readonly topic: Topic;
  /** The customer-managed key that encrypts the topic. */
  public readonly key: IKey;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    checkPattern('email', props.email, EMAIL_ADDRESS);
    const { topic, key } = addEncryptedTopic(this, 'Topic', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish alarms',
      displayName: props.displayName ?? DEFAULT_DISPLAY_NAME,
    });
    this.topic = topic;
    this.key = key;
    this.allowCloudWatchToUseKey(key);
    this.allowCloudWatchToPublish();
    this.addEmailSubscription(props.email);
  }

  private allowCloudWatchToUseKey(key: IKey): void {
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [CLOUDWATCH],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // In a key policy, "*" means this key.
        resources: ['*'],
        conditions: this.onlyAlarmsOfThisAccount(),
      }),
    );
  }

  private allowCloudWatchToPublish(): void {
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [CLOUDWATCH],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: this.onlyAlarmsOfThisAccount(),
      }),
    );
  }

  /**
   * The confused-deputy guard that both the key policy and the topic policy carry: CloudWatch
   * acts for the alarm that fires, and says which (`aws:SourceArn`, `aws:SourceAccount`), so no
   * other account's alarm can use this topic, or its key, as a deputy.
   */
  private onlyAlarmsOfThisAccount(): Record<string, Record<string, string>> {
    const stack = Stack.of(this);
    return {
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm:*' }) },
      StringEquals: { 'aws:SourceAccount': stack.account },
    };
  }

  private addEmailSubscription(email: string | undefined): void {
    if (email === undefined) return;
    this.topic.addSubscription(new EmailSubscription(email));
  }
}
