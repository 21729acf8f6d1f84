import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { tableDefaults } from './table-defaults';

/** The partition key of a dedup record: `<consumer>#<eventId>`. */
export const IDEMPOTENCY_KEY_ATTRIBUTE = 'id';

/** The TTL attribute of a dedup record (epoch seconds), as Powertools idempotency writes it too. */
export const IDEMPOTENCY_TTL_ATTRIBUTE = 'expiration';

/** Props of {@link IdempotencyTable}. */
export interface IdempotencyTableProps {
  /**
   * A customer-managed key to encrypt the table with.
   * @default - the AWS-managed `aws/dynamodb` key
   */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the table when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The dedup table that consumers share: one item per processed event, keyed
 * `id = "<consumer>#<eventId>"`, expiring through DynamoDB TTL on `expiration`. Its key and TTL
 * attribute are also the Powertools idempotency utility's defaults, so the same table serves
 * both the transactional dedup and Powertools-guarded external effects.
 */
export class IdempotencyTable extends Construct {
  /** The table. */
  public readonly table: Table;

  constructor(scope: Construct, id: string, props: IdempotencyTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      ...tableDefaults(props.encryptionKey),
      partitionKey: { name: IDEMPOTENCY_KEY_ATTRIBUTE, type: AttributeType.STRING },
      timeToLiveAttribute: IDEMPOTENCY_TTL_ATTRIBUTE,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}
