// The AWS SDK warns once per process that Node 20 support ends in 2027; the README says so once.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The local stacks of the tests run their functions in the test worker's own threads, on this Node.js: a
// runtime host per worker would put a second process per stack on CI's two cores. The functions' Node.js
// is covered elsewhere: `npm run test:lambda-node` runs the runtime's tests on it, demo.e2e runs the
// demo as a user does (relaunched on it), test/emulator/functions runs functions on it both ways.
process.env.EO_FUNCTIONS_NODE ??= 'tools';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testTimeout: 60_000,
  // One set of local engines per `jest` run, shared by all files (EO_TEST_ENGINES=none skips them);
  // files run in two workers to fit a 2-core machine.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFiles: ['<rootDir>/test/helpers/quiet.ts'],
  maxWorkers: 2,
  // A worker that finished its files holds no timer, socket or child (checked by logging its active
  // handles at its end: none); its own exit took 0.24-0.29 s on a quiet machine and 0.6-1.3 s with
  // 10-14 CPU-bound processes beside it, past Jest's default 500 ms, after which Jest kills it and
  // prints "a worker process has failed to exit gracefully". Three seconds covers a loaded machine.
  workerGracefulExitTimeout: 3_000,
};
