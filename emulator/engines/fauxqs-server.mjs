// Runs fauxqs (SQS + SNS) in its own process: fauxqs is ESM-only and Jest runs CommonJS.
// Contract (see launcher.ts): prints {"port": n} once listening; exits when stdin closes.
//
// It listens on 127.0.0.1 only. fauxqs's startFauxqs() listens on 0.0.0.0, every interface, and
// takes no option to change that (1.9.2: `app.listen({ port, host: "0.0.0.0" })`), which would let
// anyone on the network use the engine, unsigned and unchecked, around the contract layer's
// gateway. Its buildApp() is the same server without the listen: this listens where we say.
// (startFauxqs also offers programmatic helpers, createQueue and the like, which nothing here uses.)
import { buildApp } from 'fauxqs';
import { deliverFifoGroupsWhole } from './fauxqs-fifo-batches.mjs';
import { answerOldestMessageSentTimestamp } from './fauxqs-oldest-message.mjs';

// FIFO receives as SQS makes them: each group's messages together (see the module).
await deliverFifoGroupsWhole();
// The send time of each queue's oldest message, for local mode's ApproximateAgeOfOldestMessage (see the module).
await answerOldestMessageSentTimestamp();

const region = process.env.AWS_REGION ?? 'us-east-1';
const app = buildApp({ logger: false, defaultRegion: region });
await app.listen({ port: 0, host: '127.0.0.1' });

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  app.close().finally(() => process.exit(0));
  // Do not wait on keep-alive client sockets: nothing here needs a graceful close.
  setTimeout(() => process.exit(0), 1000).unref();
}

// stdin closes when the parent dies, however it dies: this is what prevents orphans.
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
