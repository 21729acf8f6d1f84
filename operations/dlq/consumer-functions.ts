/**
 * The stack's consumer functions by the sources their mappings read, from the template: the only
 * functions a DynamoDB Streams redrive may invoke. Pure: the caller resolves the template's values.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import type { Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';
import { functionSources } from './function-sources';
import type { ConsumerFunction } from './types';

/** One entry per function and mapping that invokes it. */
export function consumerFunctions(template: Template, resolve: TryResolve): ConsumerFunction[] {
  return functionSources(template, resolve).map(({ functionName, variables, sourceArn, batchSize }) => ({
    functionName,
    consumer: resolve(variables[CONSUMER_ENV.consumerName]) ?? functionName,
    sourceArn,
    ...(batchSize !== undefined && { batchSize }),
  }));
}
