/**
 * How local mode reads a template function's Lambda Managed Instances settings: the invocations
 * each execution environment runs at once, and a refusal of what AWS would refuse. Pure: the
 * function is a template resource, as the synthesized stack holds it.
 */
import { managedInstancesConcurrency } from '../../../emulator/stack/managed-instances';
import type { NamedResource } from '../../../aws/cloudformation/template';

function templateFunction(capacityProviderConfig?: Record<string, unknown>): NamedResource {
  return {
    logicalId: 'LedgerFn',
    type: 'AWS::Lambda::Function',
    properties: capacityProviderConfig === undefined ? {} : { CapacityProviderConfig: { LambdaManagedInstancesCapacityProviderConfig: capacityProviderConfig } },
    metadata: {},
  };
}

const provider = { CapacityProviderArn: 'arn:aws:lambda:us-east-1:000000000000:capacity-provider:pool' };

describe('managedInstancesConcurrency', () => {
  it('is undefined for a function of the default model, whatever its memory or runtime', () => {
    expect(managedInstancesConcurrency(templateFunction(), 128, 'nodejs20.x')).toBeUndefined();
  });

  it("takes the template's PerExecutionEnvironmentMaxConcurrency", () => {
    expect(managedInstancesConcurrency(templateFunction({ ...provider, PerExecutionEnvironmentMaxConcurrency: 8 }), 2048, 'nodejs24.x')).toBe(8);
  });

  it("falls back to Node.js's 64 per vCPU, the vCPUs being the memory over the memory per vCPU", () => {
    expect(managedInstancesConcurrency(templateFunction(provider), 2048, 'nodejs24.x')).toBe(64);
    expect(managedInstancesConcurrency(templateFunction(provider), 8192, 'nodejs24.x')).toBe(256);
    expect(managedInstancesConcurrency(templateFunction({ ...provider, ExecutionEnvironmentMemoryGiBPerVCpu: 4 }), 8192, 'nodejs24.x')).toBe(128);
  });

  it('refuses what AWS would refuse, naming the function and each problem', () => {
    expect(() => managedInstancesConcurrency(templateFunction(provider), 1024, 'nodejs24.x')).toThrow(
      'function LedgerFn cannot run on Lambda Managed Instances: a function on Lambda Managed Instances has at least 2048 MB of memory (given 1024)',
    );
    expect(() => managedInstancesConcurrency(templateFunction(provider), 2048, 'nodejs20.x')).toThrow('Lambda Managed Instances run Node.js 22 and later (given nodejs20.x)');
    expect(() => managedInstancesConcurrency(templateFunction({ ...provider, PerExecutionEnvironmentMaxConcurrency: 1601 }), 2048, 'nodejs24.x')).toThrow(
      'PerExecutionEnvironmentMaxConcurrency is a whole number 1..1600 (given 1601)',
    );
    expect(() => managedInstancesConcurrency(templateFunction({ ...provider, ExecutionEnvironmentMemoryGiBPerVCpu: 1 }), 2048, 'nodejs24.x')).toThrow(
      'ExecutionEnvironmentMemoryGiBPerVCpu is 2..8 (given 1)',
    );
  });
});
