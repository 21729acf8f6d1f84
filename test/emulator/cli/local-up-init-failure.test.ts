/**
 * `eo local up` keeps serving when a function cannot start, and says so on stderr: once for each
 * distinct failure (every retry of the mapping fails the same way; the functions' log has them all).
 */
import { initFailurePrinter } from '../../../emulator/cli/local-commands';
import type { InitFailure } from '../../../emulator/functions';

function failure(functionName: string, errorType: string): InitFailure {
  return { functionName, errorType, errorMessage: `${errorType} in ${functionName}\nRequire stack: ...`, at: '2026-12-01T09:00:00.000Z' };
}

test('each distinct init failure is printed once, naming the function, the error and the log', () => {
  const printed: string[] = [];
  const print = initFailurePrinter('.eo/functions.log', (text) => printed.push(text));
  print(failure('page-view-counter', 'Runtime.HandlerNotFound'));
  print(failure('page-view-counter', 'Runtime.HandlerNotFound'));
  print(failure('order-projection', 'Runtime.ImportModuleError'));
  expect(printed).toHaveLength(2);
  expect(printed[0]).toBe(
    'eo local up: function page-view-counter failed to initialize: Runtime.HandlerNotFound: Runtime.HandlerNotFound in page-view-counter (logged in .eo/functions.log). ' +
      'The stack keeps serving; every invocation of page-view-counter fails until its code is fixed and `eo local up` restarted.\n',
  );
  expect(printed[1]).toContain('function order-projection failed to initialize: Runtime.ImportModuleError');
});
