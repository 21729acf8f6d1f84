import type { Engines } from '../../emulator/engines';
import type { ContractGateways } from '../../emulator/gateway';
import { ENGINES_GLOBAL_KEY, GATEWAYS_GLOBAL_KEY } from './engine-env';

/** Stops the gateways, then the engines, that global setup started. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  await (state[GATEWAYS_GLOBAL_KEY] as ContractGateways | undefined)?.stop();
  await (state[ENGINES_GLOBAL_KEY] as Engines | undefined)?.stop();
}
