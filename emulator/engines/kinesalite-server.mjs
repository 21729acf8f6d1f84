// Runs kinesalite (Kinesis) in its own process, so a hung engine cannot block the test process.
// Contract (see launcher.ts): prints {"port": n} once listening; exits when stdin closes.
// argv[2]: JSON kinesalite options, e.g. {"createStreamMs": 50, "shardLimit": 1000}. No `path`
// option means in-memory storage (memdown).
import kinesalite from 'kinesalite';

const options = JSON.parse(process.argv[2] ?? '{}');
const server = kinesalite(options);

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  // Do not wait on keep-alive client sockets: nothing here needs a graceful close.
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}

server.listen(0, '127.0.0.1', () => {
  // stdin closes when the parent dies, however it dies: this is what prevents orphans.
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
