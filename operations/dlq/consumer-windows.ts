/**
 * The dedup window of each consumer of the stack, by the sources it reads, from the template: the
 * `DEDUP_TTL_SECONDS` the constructs set on its function (aws/consumer-env.ts), for each mapping
 * that invokes it. `dlq redrive` holds a copy it would republish to a source against the shortest
 * window among that source's consumers: every one of them gets the copy. Pure: the caller
 * resolves the template's values.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import type { Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';
import { functionSources } from './function-sources';
import type { ConsumerWindow } from './types';

/** One window per function that declares a dedup TTL and per mapping that invokes it. */
export function consumerWindows(template: Template, resolve: TryResolve): ConsumerWindow[] {
  return functionSources(template, resolve).flatMap(({ functionName, variables, sourceArn }) => {
    const dedupTtlSeconds = Number(resolve(variables[CONSUMER_ENV.dedupTtlSeconds]));
    if (!Number.isInteger(dedupTtlSeconds) || dedupTtlSeconds <= 0) return [];
    return [{ consumer: resolve(variables[CONSUMER_ENV.consumerName]) ?? functionName, sourceArn, dedupTtlSeconds }];
  });
}
