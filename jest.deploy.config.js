// The deploy test: `cdk bootstrap`, `cdk deploy`, the DLQ CLI and `cdk destroy` against moto's
// server (`npm run test:deploy`). Its files end in `.deploy.ts`, so the default `jest` run, which
// matches `*.test.ts`, never picks them up; it needs no local engines, so no global setup.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/deploy'],
  testMatch: ['**/*.deploy.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  setupFiles: ['<rootDir>/test/helpers/quiet.ts'],
  // One stack, deployed once, read back by test after test: one file, in band.
  maxWorkers: 1,
  testTimeout: 120_000,
};
