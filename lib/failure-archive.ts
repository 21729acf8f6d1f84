/**
 * Where a stream consumer's event source mapping keeps the batches it gives up on, whole: an S3
 * bucket. Lambda's SQS on-failure record is a pointer (shard, sequence numbers), so a redrive must
 * read the records back from the stream and races its retention; an S3 on-failure record holds
 * the invocation record itself, payload included.
 *
 * The bucket: KMS-encrypted (the `aws/s3` key, which Lambda's writes under the function's role may
 * use without a key grant), TLS only, public access blocked, no ACLs, versioned, objects kept for
 * the DLQ retention (within the dedup window, which the consumers validate against it), old
 * versions for a day. Each object created is announced to an index queue, and the usual depth
 * alarm watches that queue: an archive that holds failures alarms like a DLQ that does.
 *
 * The announcement goes S3 -> EventBridge -> SQS, not S3 -> SQS: S3 sends an `s3:TestEvent` to a
 * queue when a notification to it is set, and that message would fire the depth alarm on every
 * first deploy. The bucket's own `EventBridgeConfiguration` turns its events on (CDK's
 * `eventBridgeEnabled` would set it through a custom resource Lambda, one more function per stack,
 * which the emulator cannot run), and a rule of this construct sends the bucket's `Object Created`
 * events to the queue. Nothing cycles (the rule names the bucket and the queue, the queue's policy
 * the rule), so CloudFormation names the bucket.
 */
import { Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IEventSourceDlq, IFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ControlTowerRule, declineControlTowerRule } from './control-tower';
import { DLQ_RETENTION } from './defaults';
import { addMonitoredDlq, type MonitoredDlq } from './monitored-dlq';

/** Old versions of an object (a redrive deletes objects) are kept this long. */
const NONCURRENT_VERSION_DAYS = 1;

/** Props of {@link FailureArchive}. */
export interface FailureArchiveProps {
  /** The consumer whose failed batches the bucket keeps, for the alarm's description. */
  readonly consumerName: string;
  /** The topic the index queue's depth alarm notifies. */
  readonly alarmTopic: ITopic;
}

/** A stream consumer's S3 on-failure destination, with the index queue and alarm that make it watched. */
export class FailureArchive extends Construct {
  /** The bucket Lambda writes each failed batch's invocation record to. */
  public readonly bucket: Bucket;
  /** One message per object created: its depth is the number of failed batches not yet redriven. */
  public readonly index: MonitoredDlq;
  /**
   * The EventBridge rule that sends each `Object Created` event of the bucket to the index queue.
   * If EventBridge cannot deliver one, the object is still in the bucket, and `eo dlq` reads the
   * bucket itself: a lost announcement loses the alarm, not the failed batch.
   */
  public readonly announcements: Rule;

  constructor(scope: Construct, id: string, props: FailureArchiveProps) {
    super(scope, id);
    this.index = addMonitoredDlq(this, {
      consumerName: props.consumerName,
      alarmTopic: props.alarmTopic,
      // Nothing redrives to it; allow-all is how a queue declares itself a DLQ to CT.SQS.PR.1.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.bucket = this.addBucket();
    this.announcements = this.announceObjects(props.consumerName);
    this.acknowledgeFindings();
  }

  /**
   * The mapping's on-failure destination. The function's role may put objects in the bucket (and
   * list it, which Lambda's S3 destination asks for), in this account only, nothing more: CDK's
   * own S3 destination grants read and write.
   */
  public destination(): IEventSourceDlq {
    return {
      bind: (mapping, fn: IFunction) => {
        // The mapping writes failures only once they are announced: the rule and the queue's
        // policy (which lets EventBridge send) exist first.
        mapping.node.addDependency(this.announcements);
        const policy = this.index.queue.node.tryFindChild('Policy');
        if (policy) mapping.node.addDependency(policy);
        // The bucket of this account only: were it deleted and its name taken by another account,
        // failed batches must not go there (Lambda Developer Guide, "Security best practices for
        // Amazon S3 destinations").
        const ownAccount = { StringEquals: { 's3:ResourceAccount': Aws.ACCOUNT_ID } };
        fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('*')], conditions: ownAccount }));
        fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn], conditions: ownAccount }));
        if (fn.role) {
          Validations.of(fn.role).acknowledge({
            id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/*]`,
            reason: 'Lambda names each object of a failed batch itself; the role may put objects in this archive bucket only, and read or delete none.',
          });
        }
        return { destination: this.bucket.bucketArn };
      },
    };
  }

  /** The bucket's logical id as the template writes it, which cdk-nag's finding ids name. */
  private bucketLogicalId(): string {
    const stack = Stack.of(this);
    return String(stack.resolve(stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket)));
  }

  private addBucket(): Bucket {
    const bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.KMS_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      lifecycleRules: [{ expiration: DLQ_RETENTION, noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS) }],
    });
    // On the CfnBucket, not through CDK's custom resource (see the module's comment).
    (bucket.node.defaultChild as CfnBucket).notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
    return bucket;
  }

  /** The rule that sends the bucket's object-created events to the index queue; its target lets only this rule send. */
  private announceObjects(consumerName: string): Rule {
    return new Rule(this, 'ObjectCreated', {
      description: `Announces each failed batch of ${consumerName} kept in its failure archive to the archive's index queue.`,
      eventPattern: { source: ['aws.s3'], detailType: ['Object Created'], detail: { bucket: { name: [this.bucket.bucketName] } } },
      targets: [new SqsQueue(this.index.queue)],
    });
  }

  private acknowledgeFindings(): void {
    const bucket = this.bucket.node.defaultChild as CfnBucket;
    const logs =
      'The archive holds only failed batches, written by Lambda and read by eo dlq; CloudTrail data ' +
      'events audit it where an account requires that. A log bucket would need its own log bucket.';
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: logs });
    declineControlTowerRule(bucket, ControlTowerRule.S3_ACCESS_LOGGING, logs);
    declineControlTowerRule(
      bucket,
      ControlTowerRule.S3_OBJECT_LOCK,
      'eo dlq redrive deletes an object once its records are back on their stream; Object Lock would forbid that, and the lifecycle rule ends what is left after the DLQ retention.',
    );
    Validations.of(this.index.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter index: one message per failed batch in the archive bucket. cdk-nag only recognises DLQs that another queue names in its RedrivePolicy.',
    });
  }
}
