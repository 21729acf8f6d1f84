/** The local engines, named by the AWS service they stand in for (fauxqs serves SNS too). */
export const ENGINE_NAMES = ['dynamodb', 'sqs', 'kinesis'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** One engine process that answers on `endpoint`. */
export interface RunningEngine {
  readonly name: EngineName;
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** Stops the process; resolves once it has exited. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Endpoints of the engines that were started. `sqs` also serves SNS (fauxqs emulates both on
 * one port).
 */
export interface EngineEndpoints {
  readonly dynamodb?: string;
  readonly sqs?: string;
  readonly kinesis?: string;
}

/**
 * What a client of local mode reaches: the engines (through the contract layer's gateways) and
 * Lambda's Invoke API, which the stack's local functions answer.
 */
export interface LocalEndpoints extends EngineEndpoints {
  readonly lambda?: string;
}

/** The engines started by `startEngines`. */
export interface Engines {
  readonly endpoints: EngineEndpoints;
  /** Stops every engine; resolves once all have exited. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Which engines `startEngines` starts. */
export interface StartEnginesOptions {
  /** Start DynamoDB Local (needs Java 17+). @default true */
  readonly dynamodb?: boolean;
  /** Start fauxqs (SQS and SNS). @default true */
  readonly sqs?: boolean;
  /** Start kinesalite (Kinesis). @default true */
  readonly kinesis?: boolean;
}
