// SQS hands a FIFO queue's messages out as whole groups: "Amazon SQS first attempts to return as
// many messages with the same message group ID as possible" (SQS Developer Guide, "Message
// grouping in FIFO queues"), and no more of a group while any of it is in flight. fauxqs 1.9 hands
// out one message per group per ReceiveMessage, so locally a FIFO batch never held two messages of
// one group, and the runtime's per-group ordering inside a batch went unexercised. This replaces
// fauxqs's FIFO dequeue with one that takes each unlocked group's messages in order until the batch
// is full, keeping fauxqs's bookkeeping: the receive count, the redrive to the DLQ past
// maxReceiveCount, one in-flight entry per message, and one group lock per message in flight.
// Messages that come back from flight (a visibility timeout, ChangeMessageVisibility to 0) go back
// to the front of their group one by one, which reverses several of them: each group is put back
// in sequence-number order before it is handed out, so that it comes back in the order it was sent.
import { randomUUID } from 'node:crypto';

/** The fields of fauxqs's SqsQueue that the replacement reads; a fauxqs without them is refused. */
const REQUIRED = ['processTimers', 'attributes', 'fifoMessages', 'fifoLockedGroups', 'inflightMessages'];

/** Patches fauxqs's SqsQueue (the instance fauxqs itself loads) before any queue exists. */
export async function deliverFifoGroupsWhole() {
  const store = await import(new URL('./sqs/sqsStore.js', import.meta.resolve('fauxqs')).href);
  const prototype = store.SqsQueue?.prototype;
  if (typeof prototype?.dequeueFifo !== 'function' || typeof prototype.processTimers !== 'function') {
    throw new Error('fauxqs changed: SqsQueue.dequeueFifo is gone; check emulator/engines/fauxqs-fifo-batches.mjs against this fauxqs version');
  }
  prototype.dequeueFifo = dequeueWholeGroups;
}

function dequeueWholeGroups(maxCount, visibilityTimeoutOverride, dlqResolver) {
  for (const field of REQUIRED) if (this[field] === undefined) throw new Error(`fauxqs changed: a queue has no ${field}; check emulator/engines/fauxqs-fifo-batches.mjs`);
  this.processTimers();
  const limit = Math.min(maxCount, 10);
  const visibilitySeconds = visibilityTimeoutOverride ?? Number.parseInt(this.attributes.VisibilityTimeout, 10);
  const redrive = redriveOf(this.attributes.RedrivePolicy);
  const batch = [];
  for (const [groupId, waiting] of this.fifoMessages) {
    if (batch.length >= limit) break;
    if (this.fifoLockedGroups.has(groupId)) continue;
    waiting.sort(bySequenceNumber);
    while (batch.length < limit && waiting.length > 0) {
      const message = waiting.shift();
      message.approximateReceiveCount += 1;
      message.approximateFirstReceiveTimestamp ||= Date.now();
      if (movedToDlq(message, redrive, dlqResolver)) continue;
      batch.push(handOut(this, message, visibilitySeconds));
      this.fifoLockedGroups.set(groupId, (this.fifoLockedGroups.get(groupId) ?? 0) + 1);
    }
    if (waiting.length === 0) this.fifoMessages.delete(groupId);
  }
  return batch;
}

/** fauxqs's sequence numbers are decimal strings, increasing per queue. */
function bySequenceNumber(a, b) {
  const [x, y] = [BigInt(a.sequenceNumber ?? 0), BigInt(b.sequenceNumber ?? 0)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function redriveOf(policy) {
  if (!policy) return undefined;
  try {
    const { maxReceiveCount, deadLetterTargetArn } = JSON.parse(policy);
    return deadLetterTargetArn ? { maxReceiveCount: maxReceiveCount ?? Infinity, deadLetterTargetArn } : undefined;
  } catch {
    return undefined;
  }
}

/** Past maxReceiveCount the message goes to the DLQ instead of out, as SQS's redrive policy does. */
function movedToDlq(message, redrive, dlqResolver) {
  if (!redrive || !dlqResolver || message.approximateReceiveCount <= redrive.maxReceiveCount) return false;
  const dlq = dlqResolver(redrive.deadLetterTargetArn);
  if (!dlq) return false;
  dlq.enqueue(message);
  return true;
}

function handOut(queue, message, visibilitySeconds) {
  const receiptHandle = randomUUID();
  queue.inflightMessages.set(receiptHandle, { message, receiptHandle, visibilityDeadline: Date.now() + visibilitySeconds * 1000 });
  const attributes = Object.keys(message.messageAttributes ?? {}).length > 0 ? { MessageAttributes: message.messageAttributes } : {};
  return {
    MessageId: message.messageId,
    ReceiptHandle: receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    ...(message.md5OfMessageAttributes && { MD5OfMessageAttributes: message.md5OfMessageAttributes }),
    ...attributes,
  };
}
