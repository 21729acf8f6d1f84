// The package tests (`npm run test:package`): an operator's install from a fresh clone, and a CDK
// app of its own on the packed tarball. Their files end in `.package.ts`, so the default `jest`
// run, which matches `*.test.ts`, never picks them up. They need the npm registry (npm ci, npm
// install) and start their own local engines, so no global setup; one file at a time, since each
// installs and runs a great deal.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/package'],
  testMatch: ['**/*.package.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  setupFiles: ['<rootDir>/test/helpers/quiet.ts'],
  maxWorkers: 1,
  testTimeout: 120_000,
};
