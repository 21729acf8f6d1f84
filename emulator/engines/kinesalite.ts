import { join } from 'node:path';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './account';
import { startLauncher } from './launcher';
import type { RunningEngine } from './types';

/**
 * How long kinesalite keeps a stream CREATING, DELETING or UPDATING. Its default (500 ms) slows
 * every test; zero would hide code that forgets to wait for ACTIVE, as AWS takes seconds.
 */
export const STREAM_TRANSITION_MS = 50;

/**
 * Shards allowed across all streams. One kinesalite serves a whole test run whose streams are
 * never deleted, so kinesalite's default of 10 would run out after a few tests.
 */
export const SHARD_LIMIT = 1000;

/** Starts kinesalite, the Kinesis emulator, in a child process with in-memory storage. */
export function startKinesalite(): Promise<RunningEngine> {
  const options = {
    createStreamMs: STREAM_TRANSITION_MS,
    deleteStreamMs: STREAM_TRANSITION_MS,
    updateStreamMs: STREAM_TRANSITION_MS,
    shardLimit: SHARD_LIMIT,
  };
  return startLauncher({
    engine: 'kinesis',
    script: join(__dirname, 'kinesalite-server.mjs'),
    args: [JSON.stringify(options)],
    // kinesalite builds stream ARNs from these, so they match the ARNs the clients expect.
    env: { AWS_REGION: LOCAL_REGION, AWS_ACCOUNT_ID: LOCAL_ACCOUNT_ID },
  });
}
