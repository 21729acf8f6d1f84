/**
 * The demo on Lambda Managed Instances: which assembly it synthesizes, how many SQS pollers it runs,
 * and what its report says of the functions. Pure: the stack is the two maps the report reads.
 */
import {
  demoAssembly,
  demoSqsPollers,
  MANAGED_INSTANCES_OUT_DIR,
  MANAGED_INSTANCES_SQS_POLLERS,
  managedInstancesReport,
  managedInstancesRows,
} from '../../../emulator/demo/managed-instances';
import type { LocalFunction } from '../../../emulator/functions';
import type { FunctionSpec } from '../../../emulator/stack/functions';

describe('the demo on Lambda Managed Instances', () => {
  it("synthesizes with the context managedInstances into an assembly of its own, and leaves the default one's synth alone", () => {
    expect(demoAssembly(true)).toEqual({ outDir: MANAGED_INSTANCES_OUT_DIR, context: { managedInstances: 'true' } });
    expect(demoAssembly(false)).toEqual({});
  });

  it('polls each SQS mapping with the pollers asked for, else enough batches to fill an environment, else --concurrency', () => {
    expect(demoSqsPollers({ sqsPollers: 3, concurrency: 2, managedInstances: true })).toBe(3);
    expect(demoSqsPollers({ concurrency: 2, managedInstances: true })).toBe(MANAGED_INSTANCES_SQS_POLLERS);
    expect(demoSqsPollers({ concurrency: 2 })).toBe(2);
    expect(demoSqsPollers({})).toBeUndefined();
  });

  it('reports each function on Managed Instances with its concurrency and the most invocations one environment ran at once', () => {
    const spec = (perEnvironmentMaxConcurrency?: number) => ({ perEnvironmentMaxConcurrency }) as FunctionSpec;
    const fn = (peakEnvironmentLoad: number) => ({ stats: () => ({ peakEnvironmentLoad }) }) as unknown as LocalFunction;
    const stack = {
      functionSpecs: new Map([['Counter', spec(8)], ['Ledger', spec(8)], ['Default', spec()]]),
      functions: new Map([['Counter', fn(8)], ['Ledger', fn(3)], ['Default', fn(1)]]),
    };
    const report = managedInstancesReport(stack);
    expect(report).toEqual({ Counter: { perEnvironmentMaxConcurrency: 8, peakEnvironmentLoad: 8 }, Ledger: { perEnvironmentMaxConcurrency: 8, peakEnvironmentLoad: 3 } });
    expect(managedInstancesRows(report)).toEqual([['functions on Lambda Managed Instances', '2; most invocations at once in one environment: 8 (of 8)']]);
  });

  it("adds no row for a run in Lambda's default model", () => {
    expect(managedInstancesRows(undefined)).toEqual([]);
    expect(managedInstancesRows({})).toEqual([]);
  });
});
