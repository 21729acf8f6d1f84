/**
 * The contracts between the parts of local mode: functions are invoked through an {@link Invoker},
 * event source mappings ask {@link DeliveryFaults} what to do to each batch, and every random
 * choice comes from one {@link Random} so that a seed reproduces a run.
 */

/** What one invocation of a local function came to. */
export type InvokeResult =
  | { readonly ok: true; readonly response: unknown; readonly durationMs: number }
  | {
      readonly ok: false;
      /** `timeout`: ran past the function's timeout; `error`: the handler threw; `crash`: the sandbox died. */
      readonly error: { readonly kind: 'timeout' | 'error' | 'crash'; readonly name: string; readonly message: string };
      readonly durationMs: number;
    };

/** What an invocation carries besides its event; an event source mapping sets none of it. */
export interface InvokeOptions {
  /** Invoke's `ClientContext`, decoded: the function reads it as `context.clientContext`. */
  readonly clientContext?: unknown;
}

/** Invokes a function with an event, as an event source mapping does (or as the Invoke API does, with options). */
export type Invoker = (event: unknown, options?: InvokeOptions) => Promise<InvokeResult>;

/** A uniform random number in [0, 1), from the run's seeded generator. */
export type Random = () => number;

/** The event sources local mode emulates. */
export type MappingSource = 'sqs' | 'kinesis' | 'dynamodb-stream';

/** What a fault plan decides for one batch about to be delivered. */
export interface DeliveryDecision {
  /** Deliver the same batch a second time after the first (a duplicate delivery). */
  readonly duplicate?: boolean;
  /** Invoke, then lose the response: nothing is acked or checkpointed, so the batch comes back. */
  readonly crashAfterInvoke?: boolean;
  /** SQS: hold the batch past its visibility timeout before invoking, so that it is delivered again meanwhile. */
  readonly outliveVisibility?: boolean;
}

/** Decides, batch by batch, which delivery faults to inject. */
export interface DeliveryFaults {
  decide(batch: { readonly source: MappingSource; readonly size: number }): DeliveryDecision;
}

/** No faults: every batch delivered once and acked. */
export const NO_DELIVERY_FAULTS: DeliveryFaults = { decide: () => ({}) };
