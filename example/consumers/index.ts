/**
 * The consumers added with `npm run eo -- new consumer`, beside the examples of
 * `EventPipelineStack`. Each one lives in its own file here; the generator adds its import and
 * its entry between the markers. Edit or remove entries like any code, but keep the four marker
 * lines: the generator refuses to run without them.
 */
import type { AddConsumer } from '../event-pipeline-stack';
// eo:generated-imports:start
// eo:generated-imports:end

/** Added to the stack in this order, after the example consumers. */
export const GENERATED_CONSUMERS: readonly AddConsumer[] = [
  // eo:generated-consumers:start
  // eo:generated-consumers:end
];
