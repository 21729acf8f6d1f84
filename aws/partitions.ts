/**
 * The DNS suffix of each AWS partition (`AWS::URLSuffix`), as the SDK's partitions table gives
 * it: a queue URL is `https://sqs.<region>.<suffix>/<account>/<name>`. China's is not
 * `amazonaws.com`, nor are the isolated and sovereign partitions'.
 */
const URL_SUFFIXES: Readonly<Record<string, string>> = {
  aws: 'amazonaws.com',
  'aws-us-gov': 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-eusc': 'amazonaws.eu',
  'aws-iso': 'c2s.ic.gov',
  'aws-iso-b': 'sc2s.sgov.gov',
  'aws-iso-e': 'cloud.adc-e.uk',
  'aws-iso-f': 'csp.hci.ic.gov',
};

/**
 * `AWS::URLSuffix` of a partition. A partition newer than this table falls back to the host of
 * one of the stack's queue URLs, which CloudFormation built with the right suffix.
 *
 * @example urlSuffixOf('aws-cn') // 'amazonaws.com.cn'
 */
export function urlSuffixOf(partition: string, queueUrl?: string): string {
  const known = URL_SUFFIXES[partition];
  if (known) return known;
  const host = queueUrl ? /^https?:\/\/sqs\.[^.]+\.([^/]+)\//.exec(queueUrl)?.[1] : undefined;
  return host ?? 'amazonaws.com';
}
