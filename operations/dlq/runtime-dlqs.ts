/**
 * The queues the consumers' runtime sends its own failures to (the function's `DLQ_URL`: poison
 * with its context), with the sources of the mappings that invoke those functions. Most are found
 * otherwise too (SQS's redrive target, a stream mapping's on-failure queue); this finds the rest: a
 * stream consumer with `onFailure: 's3'` keeps its DLQ for the runtime while the mapping's
 * failures go to the archive bucket. Pure: the caller resolves the template's values.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import type { Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';
import { functionSources } from './function-sources';

export interface RuntimeDlqLink {
  /** The DLQ's URL, as the function's environment holds it. */
  readonly queueUrl: string;
  /** The source of a mapping that invokes the function. */
  readonly sourceArn: string;
}

/** One link per function with a `DLQ_URL` and per mapping that invokes it. */
export function runtimeDlqLinks(template: Template, resolve: TryResolve): RuntimeDlqLink[] {
  return functionSources(template, resolve).flatMap(({ variables, sourceArn }) => {
    const queueUrl = resolve(variables[CONSUMER_ENV.dlqUrl]);
    return queueUrl === undefined ? [] : [{ queueUrl, sourceArn }];
  });
}
