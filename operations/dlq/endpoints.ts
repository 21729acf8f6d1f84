/**
 * Which endpoint each service the DLQ tooling calls is reached at: AWS's own, or one the
 * environment configures (an emulator, a VPC interface endpoint without private DNS, a FIPS or
 * proxy endpoint). The rule is the SDK's own for service-specific endpoints:
 * `AWS_ENDPOINT_URL_<SERVICE>` first, then `AWS_ENDPOINT_URL`, and neither when
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`. The SDK would apply it by itself; the tooling
 * reads it too, so that a malformed value stops it with the variable's name and the commands can
 * say which endpoint they are talking to. (The SQS and Kinesis clients are set up to work with
 * any endpoint, however it is configured: clients.ts.)
 */
import { InvalidOptionError } from './errors';

/** The environment variable suffix of each service: the SDK's service id, upper case, `_` for spaces. */
export const DlqService = {
  SQS: 'SQS',
  KINESIS: 'KINESIS',
  DYNAMODB: 'DYNAMODB',
  DYNAMODB_STREAMS: 'DYNAMODB_STREAMS',
  S3: 'S3',
  LAMBDA: 'LAMBDA',
  RDS_DATA: 'RDS_DATA',
  CLOUDFORMATION: 'CLOUDFORMATION',
} as const;
export type DlqService = (typeof DlqService)[keyof typeof DlqService];

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** An endpoint per service; a service left out goes to AWS. */
export type ServiceEndpoints = Readonly<Partial<Record<DlqService, string>>>;

/**
 * The endpoint the environment configures for `service`, if any.
 *
 * @throws InvalidOptionError naming the variable when its value is not an http(s) URL
 * @example configuredEndpoint('SQS', { AWS_ENDPOINT_URL: 'http://localhost:5000' }) // 'http://localhost:5000'
 */
export function configuredEndpoint(service: DlqService, env: Env = process.env): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === 'true') return undefined;
  const name = [`AWS_ENDPOINT_URL_${service}`, 'AWS_ENDPOINT_URL'].find((candidate) => env[candidate]?.trim());
  return name === undefined ? undefined : checkedUrl(name, (env[name] ?? '').trim());
}

/** Every service's configured endpoint. */
export function configuredEndpoints(env: Env = process.env): ServiceEndpoints {
  const entries = Object.values(DlqService).flatMap((service) => {
    const endpoint = configuredEndpoint(service, env);
    return endpoint === undefined ? [] : [[service, endpoint] as const];
  });
  return Object.fromEntries(entries);
}

function checkedUrl(variable: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new InvalidOptionError(`${variable} must be an http(s) URL such as http://localhost:5000 (given "${value}"); unset it to reach AWS`);
  }
  return value;
}
