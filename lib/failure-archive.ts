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
 * The bucket is named up front: the index queue's policy must name the bucket (only it may send),
 * and the bucket's notification names the queue, whose policy S3 checks when the notification is
 * set; a known name breaks that cycle.
 */
import { Aws, Duration, Fn, Names, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
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

  constructor(scope: Construct, id: string, props: FailureArchiveProps) {
    super(scope, id);
    const bucketName = this.bucketName();
    this.index = addMonitoredDlq(this, {
      consumerName: props.consumerName,
      alarmTopic: props.alarmTopic,
      // Nothing redrives to it; allow-all is how a queue declares itself a DLQ to CT.SQS.PR.1.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.allowNotificationsFrom(bucketName);
    this.bucket = this.addBucket(bucketName);
    this.acknowledgeFindings();
  }

  /**
   * The mapping's on-failure destination. The function's role may put objects in the bucket (and
   * list it, which Lambda's S3 destination asks for), in this account only, nothing more: CDK's
   * own S3 destination grants read and write.
   */
  public destination(): IEventSourceDlq {
    return {
      bind: (_mapping, fn: IFunction) => {
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

  /** Lowercase, unique in the stack, with the account and region so that it is unique in S3: at most 63 characters. */
  private bucketName(): string {
    const base = Names.uniqueResourceName(this, { maxLength: 30, separator: '-' }).toLowerCase().replace(/[^a-z0-9-]/g, '-');
    return Fn.join('-', [base, Aws.ACCOUNT_ID, Aws.REGION]);
  }

  private allowNotificationsFrom(bucketName: string): void {
    this.index.queue.addToResourcePolicy(new PolicyStatement({
      actions: ['sqs:SendMessage'],
      principals: [new ServicePrincipal('s3.amazonaws.com')],
      resources: [this.index.queue.queueArn],
      conditions: {
        ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:s3:::${bucketName}` },
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      },
    }));
  }

  private addBucket(bucketName: string): Bucket {
    const bucket = new Bucket(this, 'Bucket', {
      bucketName,
      encryption: BucketEncryption.KMS_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      lifecycleRules: [{ expiration: DLQ_RETENTION, noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS) }],
    });
    const cfn = bucket.node.defaultChild as CfnBucket;
    cfn.notificationConfiguration = { queueConfigurations: [{ event: 's3:ObjectCreated:*', queue: this.index.queue.queueArn }] };
    // S3 checks the queue's policy when the notification is set.
    const policy = this.index.queue.node.tryFindChild('Policy');
    if (policy) bucket.node.addDependency(policy);
    return bucket;
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
