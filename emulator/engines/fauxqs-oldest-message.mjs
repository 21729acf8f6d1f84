// SQS has no queue attribute for the age of its oldest message: CloudWatch publishes it as the
// metric ApproximateAgeOfOldestMessage. Local mode computes that metric from fauxqs's own messages
// through one attribute that only local mode asks for, straight from fauxqs (the contract layer
// in front of it refuses the name, as SQS would): the send time of the oldest message not deleted
// (ready, delayed or in flight), in epoch ms, and no attribute at all for an empty queue. Reading it
// receives nothing, so the messages stay where they are, and it costs no copy of the queue.

/** The local-only attribute; emulator/metrics/queue-gauges.ts names it too. */
export const OLDEST_SENT_ATTRIBUTE = 'LocalOldestMessageSentTimestamp';

/** Patches fauxqs's SqsQueue (the instance fauxqs itself loads) to answer the attribute. */
export async function answerOldestMessageSentTimestamp() {
  const store = await import(new URL('./sqs/sqsStore.js', import.meta.resolve('fauxqs')).href);
  const prototype = store.SqsQueue?.prototype;
  if (typeof prototype?.getAttribute !== 'function') {
    throw new Error('fauxqs changed: SqsQueue.getAttribute is gone; check emulator/engines/fauxqs-oldest-message.mjs against this fauxqs version');
  }
  const answer = prototype.getAttribute;
  prototype.getAttribute = function getAttribute(name) {
    if (name !== OLDEST_SENT_ATTRIBUTE) return answer.call(this, name);
    const oldest = oldestSentTimestamp(this);
    return oldest === undefined ? undefined : String(oldest);
  };
}

function oldestSentTimestamp(queue) {
  let oldest;
  const consider = (message) => {
    const sent = message?.sentTimestamp;
    if (typeof sent === 'number' && (oldest === undefined || sent < oldest)) oldest = sent;
  };
  for (const message of queue.messages ?? []) consider(message);
  for (const message of queue.delayedMessages ?? []) consider(message);
  for (const entry of queue.inflightMessages?.values() ?? []) consider(entry.message);
  for (const group of queue.fifoMessages?.values() ?? []) for (const message of group) consider(message);
  for (const group of queue.fifoDelayed?.values() ?? []) for (const message of group) consider(message);
  return oldest;
}
