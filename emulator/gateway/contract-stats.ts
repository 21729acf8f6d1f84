/** What the contract layer did, for the demo's report and for tests. */

/** Counts since the layer started. */
export interface ContractStats {
  /** AWS API requests the layer examined (every request of every client, through every gateway). */
  readonly requestsChecked: number;
  /**
   * Requests, or SQS batch entries, that AWS would refuse: by a request rule (as invalid), for an
   * access key it does not know (`gateway.unrecognized-client`), or, unclassified, as an operation
   * local mode cannot decide (`gateway.unclassified-request`).
   */
  readonly rejected: number;
  /** Requests of a function decided against its role's policies. */
  readonly iamChecks: number;
  readonly iamDenied: number;
  /** DynamoDB requests cancelled or refused because another request held one of their items, as AWS does. */
  readonly transactionConflicts: number;
  /** Refusals by rule id (`sqs.attributes.value-characters`, `iam`, ...). */
  readonly byRule: Readonly<Record<string, number>>;
}

/** The counters behind {@link ContractStats}. */
export class ContractCounters {
  private counts = { requestsChecked: 0, rejected: 0, iamChecks: 0, iamDenied: 0, transactionConflicts: 0 };
  private readonly rules = new Map<string, number>();

  public checked(): void {
    this.counts.requestsChecked += 1;
  }

  public iamChecked(allowed: boolean): void {
    this.counts.iamChecks += 1;
    if (!allowed) this.refusedBy('iam', 'iamDenied');
  }

  public rejectedBy(rule: string, count = 1): void {
    for (let n = 0; n < count; n++) this.refusedBy(rule, 'rejected');
  }

  public conflicted(rule: string): void {
    this.refusedBy(rule, 'transactionConflicts');
  }

  public snapshot(): ContractStats {
    return { ...this.counts, byRule: Object.fromEntries(this.rules) };
  }

  private refusedBy(rule: string, counter: 'rejected' | 'iamDenied' | 'transactionConflicts'): void {
    this.counts[counter] += 1;
    this.rules.set(rule, (this.rules.get(rule) ?? 0) + 1);
  }
}
