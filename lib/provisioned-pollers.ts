import { Token } from 'aws-cdk-lib';
import type { ProvisionedPollerConfig } from 'aws-cdk-lib/aws-lambda';
import { checkIntegerRange } from './validation';
import { LAMBDA_LIMITS } from '../aws/limits';

/**
 * Lambda's provisioned mode for an SQS event source mapping (November 2025): a pool of event
 * pollers kept between a minimum and a maximum. Each poller runs up to 10 concurrent invocations
 * (about 1 MB/s, 10 polls a second); Lambda scales the pool within the bounds, 3 times faster
 * than the default mode, and bills each poller (the minimum is an always-on cost). Exclusive with
 * the mapping's maximum concurrency (Lambda Developer Guide, "Configuring scaling behavior for
 * SQS event source mappings").
 */
export interface ProvisionedPollers {
  /**
   * Pollers always ready (`MinimumPollers`).
   * @range 2..200, a whole number (Lambda's limits)
   */
  readonly minimum: number;
  /**
   * Pollers Lambda may scale up to (`MaximumPollers`).
   * @range `minimum`..2000, a whole number (what CloudFormation deploys)
   */
  readonly maximum: number;
}

/**
 * Throws, naming the given values, unless the pollers are within AWS's ranges (unresolved tokens
 * pass) and no `maxConcurrency` was given beside them: Lambda takes one or the other.
 */
export function checkProvisionedPollers(pollers: ProvisionedPollers | undefined, maxConcurrency: number | undefined): void {
  if (pollers === undefined) return;
  if (maxConcurrency !== undefined) {
    throw new Error(`provisionedPollers and maxConcurrency are exclusive (given maxConcurrency ${maxConcurrency}): Lambda's provisioned mode replaces ScalingConfig.MaximumConcurrency; bound the invocations with provisionedPollers.maximum (up to 10 invocations per poller)`);
  }
  const { minimum, maximum } = pollers;
  checkIntegerRange('provisionedPollers.minimum', minimum, LAMBDA_LIMITS.minSqsMinimumPollers, LAMBDA_LIMITS.maxSqsMinimumPollers);
  checkIntegerRange('provisionedPollers.maximum', maximum, LAMBDA_LIMITS.minSqsMaximumPollers, LAMBDA_LIMITS.maxSqsMaximumPollers);
  if (Token.isUnresolved(minimum) || Token.isUnresolved(maximum)) return;
  if (minimum > maximum) throw new Error(`provisionedPollers.minimum must not exceed provisionedPollers.maximum (given minimum ${minimum}, maximum ${maximum})`);
}

/** The mapping's `ProvisionedPollerConfig`, or undefined for Lambda's default scaling. */
export function provisionedPollerConfig(pollers: ProvisionedPollers | undefined): ProvisionedPollerConfig | undefined {
  return pollers === undefined ? undefined : { minimumPollers: pollers.minimum, maximumPollers: pollers.maximum };
}
