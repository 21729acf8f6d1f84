/**
 * Local mode compresses the function timeout with the rest of time, never below a floor of
 * LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS and never above the template's own timeout.
 */
import { localFunctionTimeoutSeconds, localTransactionIdleMs, LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS } from '../../../emulator/stack/function-timeout';
import { functionSpecs } from '../../../emulator/stack/functions';

test('the floor is 5 seconds', () => {
  expect(LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS).toBe(5);
});

test.each([
  // [template timeout, time scale, local timeout]
  [30, 1 / 60, 5], // 0.5 s compressed: the floor
  [300, 1 / 60, 5], // exactly the floor
  [900, 1 / 60, 15], // compressed above the floor
  [3, 1 / 60, 3], // a timeout below the floor stays as declared: never longer than the template's
  [30, 1, 30], // no compression
  [30, 1 / 180, 5],
  [600, 1 / 2, 300],
])('a %i s timeout at time scale %d runs %d s locally', (template, scale, local) => {
  expect(localFunctionTimeoutSeconds(template, scale)).toBeCloseTo(local, 9);
});

test.each([0, -1, Number.NaN])('refuses a timeout of %d seconds', (template) => {
  expect(() => localFunctionTimeoutSeconds(template, 1 / 60)).toThrow(`a function timeout must be > 0 seconds (given ${template})`);
});

test('refuses a time scale that is not positive', () => {
  expect(() => localFunctionTimeoutSeconds(30, 0)).toThrow('timeScale must be > 0 (given 0)');
});

test.each([
  // [time scale, idle ms]: AWS's 180 s compressed, never below the floor, never above 180 s
  [1 / 60, 5_000],
  [1 / 10, 18_000],
  [1, 180_000],
  [2, 180_000],
])('the Data API keeps an idle transaction, at time scale %d, %i ms locally', (scale, idleMs) => {
  expect(localTransactionIdleMs(scale)).toBeCloseTo(idleMs, 6);
});

test('the compressed idle timeout refuses a time scale that is not positive', () => {
  expect(() => localTransactionIdleMs(0)).toThrow('timeScale must be > 0 (given 0)');
});

test('the template functions get the compressed timeout, and keep the template\'s beside it', () => {
  const template = { Resources: { Counter: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'index.handler', Runtime: 'nodejs24.x', Timeout: 30 }, Metadata: { 'aws:asset:path': 'asset.abc' } } } };
  const stack = { stackName: 'S', queues: new Map(), tables: new Map(), streams: new Map(), topics: new Map(), buckets: new Map(), clusters: new Map(), context: { resources: new Map(), pseudo: {} } };
  const [spec] = functionSpecs({ template, outDir: '/tmp/cdk.out', stack, timeScale: 1 / 60 });
  expect(spec).toMatchObject({ logicalId: 'Counter', timeoutSeconds: 5, templateTimeoutSeconds: 30, assetDir: '/tmp/cdk.out/asset.abc' });
});

test('a function that is not Node.js, or names no runtime, is refused: local mode runs the functions on the tools\' Node.js', () => {
  const stack = { stackName: 'S', queues: new Map(), tables: new Map(), streams: new Map(), topics: new Map(), buckets: new Map(), clusters: new Map(), context: { resources: new Map(), pseudo: {} } };
  const templateWith = (properties: Record<string, unknown>) => ({ Resources: { Counter: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'index.handler', ...properties }, Metadata: { 'aws:asset:path': 'asset.abc' } } } });
  expect(() => functionSpecs({ template: templateWith({ Runtime: 'python3.13' }), outDir: '/tmp/cdk.out', stack, timeScale: 1 })).toThrow('local mode runs Node.js functions only: runtime "python3.13" is not nodejs<major>.x');
  expect(() => functionSpecs({ template: templateWith({}), outDir: '/tmp/cdk.out', stack, timeScale: 1 })).toThrow('function Counter names no Runtime: local mode runs Node.js functions from zip assets only');
});
