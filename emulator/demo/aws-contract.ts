/**
 * The contract layer's part of the demo's report: how many requests it checked against AWS's
 * rules and IAM, what it refused, and the transaction conflicts it raised as DynamoDB would. A
 * clean run checks many and refuses none; conflicts are normal under concurrency (the runtime
 * retries them), so they are counted, not held against the run.
 */
import type { ContractStats } from '../gateway';

/** The `aws` section of the JSON report: the contract layer's counts at the end of the run, as it keeps them. */
export type AwsContractReport = ContractStats;

/** What would fail on AWS: an invalid request, an unknown key, a request local mode cannot decide, or a missing grant. */
export function awsContractViolations(report: AwsContractReport): string[] {
  const violations: string[] = [];
  const rules = (prefix: (rule: string) => boolean) => Object.entries(report.byRule).filter(([rule]) => prefix(rule)).map(([rule, count]) => `${rule} ${count}`).join(', ');
  if (report.rejected > 0) violations.push(`${report.rejected} requests AWS would refuse: invalid, signed with an unknown key, or not an operation local mode can decide (${rules((rule) => rule !== 'iam' && !rule.includes('transaction-conflict') && !rule.includes('in-progress'))})`);
  if (report.iamDenied > 0) violations.push(`${report.iamDenied} calls denied by IAM: a grant is missing from a function's role (see the functions' log)`);
  if (report.requestsChecked === 0) violations.push('the contract layer checked no request: the clients bypassed it');
  return violations;
}

/** The summary table's rows for the contract layer. */
export function awsContractRows(report: AwsContractReport): [string, string][] {
  return [
    ['AWS requests checked (refused)', `${report.requestsChecked} (${report.rejected})`],
    ['IAM checks (denied)', `${report.iamChecks} (${report.iamDenied})`],
    ['transaction conflicts raised, as on AWS', String(report.transactionConflicts)],
  ];
}
