import type { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { addCustomerManagedKey } from './customer-managed-key';

/** Options of {@link addEncryptedTopic}. */
export interface EncryptedTopicOptions {
  /** What the key protects, for the console. */
  readonly description: string;
  /**
   * The topic's display name (the sender name of email notifications).
   * @default - none
   */
  readonly displayName?: string;
}

/** A topic and the key that encrypts it. */
export interface EncryptedTopic {
  /** The topic, refusing plain-HTTP requests. */
  readonly topic: Topic;
  /** The customer-managed key that encrypts it, whose policy the caller may extend. */
  readonly key: Key;
}

/**
 * Adds a topic encrypted with its own customer-managed key, and that refuses plain-HTTP requests.
 * A customer-managed key, not `aws/sns`: a service that publishes to the topic (CloudWatch, for
 * one) can only be given use of a key whose policy we own.
 */
export function addEncryptedTopic(scope: Construct, id: string, options: EncryptedTopicOptions): EncryptedTopic {
  const key = addCustomerManagedKey(scope, `${id}Key`, options.description);
  const topic = new Topic(scope, id, {
    masterKey: key,
    displayName: options.displayName,
    enforceSSL: true,
  });
  return { topic, key };
}
