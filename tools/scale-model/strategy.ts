/** Finding a modelled strategy's entry in a bench run. */
import type { BenchRun, BenchStrategy, ModelledStrategy } from './bench-input';

/**
 * The entry of `name` (the reader has checked that both modelled strategies are there).
 *
 * @throws RangeError when it is not, for a run built by hand
 */
export function strategyOf(run: BenchRun, name: ModelledStrategy): BenchStrategy {
  const strategy = run.strategies.find((entry) => entry.name === name);
  if (!strategy) throw new RangeError(`the bench run has no "${name}" strategy`);
  return strategy;
}
