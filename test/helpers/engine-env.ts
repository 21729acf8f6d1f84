import type { EngineName } from '../../emulator/engines';

/**
 * The env vars through which Jest's global setup hands endpoints to test workers: the AWS contract
 * layer's gateways in front of the engines, which every test client goes through, so that a test
 * passes only with requests that AWS would accept.
 */
export const TEST_ENDPOINT_ENV: Readonly<Record<EngineName, string>> = {
  dynamodb: 'EO_TEST_DYNAMODB_ENDPOINT',
  sqs: 'EO_TEST_SQS_ENDPOINT',
  kinesis: 'EO_TEST_KINESIS_ENDPOINT',
};

/**
 * The Lambda Invoke API of the global gateways: it serves no function (no stack runs there), so
 * every invocation is `ResourceNotFoundException`; a test with functions serves them on a Lambda
 * gateway of its own (`startLambdaGateway`) or a local stack's.
 */
export const TEST_LAMBDA_ENDPOINT_ENV = 'EO_TEST_LAMBDA_ENDPOINT';

/**
 * The engines' own endpoints, behind the gateways: for the tests that show what an emulator alone
 * accepts, and for local stacks, which put gateways of their own in front of the engines.
 */
export const TEST_ENGINE_ENDPOINT_ENV: Readonly<Record<EngineName, string>> = {
  dynamodb: 'EO_TEST_DYNAMODB_ENGINE',
  sqs: 'EO_TEST_SQS_ENGINE',
  kinesis: 'EO_TEST_KINESIS_ENGINE',
};

/** Where global setup leaves the gateways for global teardown. */
export const GATEWAYS_GLOBAL_KEY = '__eoTestGateways';

/** Set to `none` to run Jest without starting any engine (unit and infra tests need none). */
export const TEST_ENGINES_ENV = 'EO_TEST_ENGINES';

/** Where global setup leaves the running engines for global teardown (same process, own module registry). */
export const ENGINES_GLOBAL_KEY = '__eoTestEngines';
