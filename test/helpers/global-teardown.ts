import type { Engines } from '../../local/engines';
import { ENGINES_GLOBAL_KEY } from './engine-env';

/** Stops the engines that global setup started. */
export default async function globalTeardown(): Promise<void> {
  const engines = (globalThis as Record<string, unknown>)[ENGINES_GLOBAL_KEY] as Engines | undefined;
  await engines?.stop();
}
