import type { EngineName } from '../../local/engines';

/** The env vars through which Jest's global setup hands engine endpoints to test workers. */
export const TEST_ENDPOINT_ENV: Readonly<Record<EngineName, string>> = {
  dynamodb: 'EO_TEST_DYNAMODB_ENDPOINT',
  sqs: 'EO_TEST_SQS_ENDPOINT',
  kinesis: 'EO_TEST_KINESIS_ENDPOINT',
};

/** Set to `none` to run Jest without starting any engine (unit and infra tests need none). */
export const TEST_ENGINES_ENV = 'EO_TEST_ENGINES';

/** Where global setup leaves the running engines for global teardown (same process, own module registry). */
export const ENGINES_GLOBAL_KEY = '__eoTestEngines';
