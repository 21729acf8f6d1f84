/**
 * The function timeout local mode enforces. Local mode compresses time (visibility timeouts and
 * alarm periods run at `timeScale`), and the function timeout with them, so that a function that
 * hangs is cut off, and its messages come back, on the same compressed clock as everything else.
 * So does the Data API's idle transaction timeout, which decides how long such a function's open
 * transaction holds its rows.
 */
import { DATA_API_LIMITS } from '../../aws/limits';

/**
 * The shortest timeout a local function gets, however hard time is compressed. Local engines run a
 * batch many times slower than AWS does (DynamoDB Local's transactions, fauxqs, the fault proxy,
 * two execution environments per function sharing the machine), and a shared CI machine is slower
 * still: below this, a healthy batch of 100 would time out and be redelivered for ever.
 */
export const LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS = 5;

/**
 * `min(template, max(template x timeScale, LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS))`: the template's
 * timeout compressed, never below the floor, and never above the template's own (a function
 * declared with 3 s keeps 3 s).
 *
 * @example localFunctionTimeoutSeconds(30, 1 / 60) // 5: 0.5 s is below the floor
 * @example localFunctionTimeoutSeconds(900, 1 / 60) // 15
 */
export function localFunctionTimeoutSeconds(templateSeconds: number, timeScale: number): number {
  if (!(templateSeconds > 0)) throw new RangeError(`a function timeout must be > 0 seconds (given ${templateSeconds})`);
  if (!(timeScale > 0)) throw new RangeError(`timeScale must be > 0 (given ${timeScale})`);
  return Math.min(templateSeconds, Math.max(templateSeconds * timeScale, LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS));
}

/**
 * How long the local Data API keeps a transaction that no call uses: AWS's three minutes
 * (`DATA_API_LIMITS.transactionIdleSeconds`) on the compressed clock, never below
 * LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS. A function that times out mid-transaction leaves it open,
 * holding the rows it wrote; on AWS the batch's redelivery (after a visibility timeout of six
 * function timeouts, about as long) finds it gone or nearly. Kept at three real minutes while
 * everything else runs sixty times faster, it would outlast many redeliveries, each blocked on its
 * rows: a cascade AWS does not have.
 *
 * @example localTransactionIdleMs(1 / 60) // 5000: 3 s is below the floor
 */
export function localTransactionIdleMs(timeScale: number): number {
  if (!(timeScale > 0)) throw new RangeError(`timeScale must be > 0 (given ${timeScale})`);
  const idleMs = DATA_API_LIMITS.transactionIdleSeconds * 1000;
  return Math.min(idleMs, Math.max(idleMs * timeScale, LOCAL_MIN_FUNCTION_TIMEOUT_SECONDS * 1000));
}
