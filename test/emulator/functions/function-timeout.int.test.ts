/**
 * Local mode enforces the function timeout on the compressed clock: the template's 30 s runs as
 * the 5 s floor at the default time scale, the handler's context counts down from it (the runtime
 * stops starting new work when little is left), and a handler that runs past it is cut off.
 */
import { LocalFunction } from '../../../emulator/functions';
import { localFunctionTimeoutSeconds } from '../../../emulator/stack/function-timeout';
import { DEFAULT_TIME_SCALE } from '../../../emulator/stack/runtime';
import { uniqueName } from '../../helpers/engines';
import { commonJsAsset, removeAssets } from './assets';

const started: LocalFunction[] = [];
afterAll(async () => {
  await Promise.all(started.map((fn) => fn.stop()));
  await removeAssets();
});

async function templateFunction(source: string): Promise<LocalFunction> {
  const fn = new LocalFunction({ name: uniqueName('timed'), assetDir: await commonJsAsset(source), timeoutSeconds: localFunctionTimeoutSeconds(30, DEFAULT_TIME_SCALE), environment: {} });
  started.push(fn);
  return fn;
}

test('the context counts down from the compressed timeout, not the template\'s', async () => {
  const fn = await templateFunction('exports.handler = async (event, context) => context.getRemainingTimeInMillis();');
  const result = await fn.invoke({});
  if (!result.ok) throw new Error(`${result.error.name}: ${result.error.message}`);
  expect(result.response).toBeLessThanOrEqual(5_000);
  expect(result.response).toBeGreaterThan(4_000);
});

test('a handler that runs past the compressed timeout is cut off after it', async () => {
  const fn = await templateFunction('exports.handler = () => new Promise((resolve) => setTimeout(resolve, 20_000));');
  const result = await fn.invoke({});
  expect(result).toMatchObject({ ok: false, error: { kind: 'timeout', name: 'Sandbox.Timedout', message: 'Task timed out after 5.00 seconds' } });
  expect(result.durationMs).toBeGreaterThanOrEqual(5_000);
  expect(result.durationMs).toBeLessThan(8_000);
}, 20_000);
