import { join } from 'node:path';
import { LOCAL_REGION } from './account';
import { startLauncher } from './launcher';
import type { RunningEngine } from './types';

/**
 * Starts fauxqs, the SQS and SNS emulator, in a child process. Its queue URLs name the host
 * `sqs.<region>.localhost`, which may not resolve: SQS clients must send to the endpoint, not to
 * the queue URL (see `sqsClient`).
 */
export function startFauxqs(): Promise<RunningEngine> {
  return startLauncher({
    engine: 'sqs',
    script: join(__dirname, 'fauxqs-server.mjs'),
    env: { AWS_REGION: LOCAL_REGION },
  });
}
