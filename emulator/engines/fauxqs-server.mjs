// Runs fauxqs (SQS + SNS) in its own process: fauxqs is ESM-only and Jest runs CommonJS.
// Contract (see launcher.ts): prints {"port": n} once listening; exits when stdin closes.
import { startFauxqs } from 'fauxqs';
import { deliverFifoGroupsWhole } from './fauxqs-fifo-batches.mjs';
import { answerOldestMessageSentTimestamp } from './fauxqs-oldest-message.mjs';

// FIFO receives as SQS makes them: each group's messages together (see the module).
await deliverFifoGroupsWhole();
// The send time of each queue's oldest message, for local mode's ApproximateAgeOfOldestMessage (see the module).
await answerOldestMessageSentTimestamp();

const region = process.env.AWS_REGION ?? 'us-east-1';
const server = await startFauxqs({ port: 0, logger: false, defaultRegion: region });

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  server.stop().finally(() => process.exit(0));
  // Do not wait on keep-alive client sockets: nothing here needs a graceful close.
  setTimeout(() => process.exit(0), 1000).unref();
}

// stdin closes when the parent dies, however it dies: this is what prevents orphans.
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
