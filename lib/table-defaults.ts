import { RemovalPolicy } from 'aws-cdk-lib';
import { BillingMode, TableEncryption, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';

/**
 * The settings every table of the pipeline shares: on-demand capacity, point-in-time recovery,
 * KMS encryption at rest, and kept when the stack is deleted (dedup records and projections are
 * state that a redeploy must not lose).
 *
 * @param encryptionKey a customer-managed key; without one the AWS-managed `aws/dynamodb` key,
 *   which needs no grants in the consumers' roles.
 */
export function tableDefaults(encryptionKey?: IKey): Partial<TableProps> {
  return {
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: encryptionKey ? TableEncryption.CUSTOMER_MANAGED : TableEncryption.AWS_MANAGED,
    encryptionKey,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}
