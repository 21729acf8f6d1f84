/** What `eo new consumer` can generate: a source, and a dedup pattern for the handler. */
import { SourceKind } from '../../aws/dlq-format';

/** Where the consumer's events come from: the runtime's sources, by the runtime's names (`--source dynamodb-stream`). */
export const Source = SourceKind;
export type Source = SourceKind;

/** How the handler makes a redelivered event harmless (docs/patterns/). */
export const Pattern = {
  /** Dedup record and an increment in one DynamoDB transaction (transactional dedup). */
  COUNTER: 'counter',
  /** A whole-item put guarded by the producer's version (versioned upsert). */
  UPSERT: 'upsert',
  /** An SNS publish wrapped in Powertools idempotency (external effects). */
  EXTERNAL: 'external',
  /** Rows and an increment in PostgreSQL, in one transaction with the dedup row (SQL dedup, through the RDS Data API). */
  SQL: 'sql',
} as const;
export type Pattern = (typeof Pattern)[keyof typeof Pattern];

export const SOURCES: readonly Source[] = Object.values(Source);
export const PATTERNS: readonly Pattern[] = Object.values(Pattern);

/** The pattern when none is given: the one whose duplicates would do visible harm. */
export const DEFAULT_PATTERN: Pattern = Pattern.COUNTER;

/** One consumer to generate. */
export interface ConsumerRequest {
  /** Kebab-case: the consumer name, the handler's file name, and (in PascalCase) its construct id. */
  readonly name: string;
  readonly source: Source;
  readonly pattern: Pattern;
}

/** How the README and the generated files name a source. */
export const SOURCE_LABEL: Readonly<Record<Source, string>> = {
  sqs: 'SQS',
  kinesis: 'Kinesis',
  'dynamodb-stream': 'DynamoDB Streams',
};

/** How the generated files name a pattern, and the page that explains it. */
export const PATTERN_LABEL: Readonly<Record<Pattern, { readonly title: string; readonly doc: string }>> = {
  counter: { title: 'transactional dedup', doc: 'docs/patterns/transactional-dedup.md' },
  upsert: { title: 'versioned upsert', doc: 'docs/patterns/versioned-upsert.md' },
  external: { title: 'external effect with Powertools idempotency', doc: 'docs/patterns/external-effects.md' },
  sql: { title: 'SQL dedup in PostgreSQL', doc: 'docs/patterns/sql-dedup.md' },
};

/** The patterns whose in-repo handler is built with `createConsumer` and a strategy; the SQL one's is `sqlHandler`'s. */
export type StrategyPattern = Exclude<Pattern, typeof Pattern.SQL>;

/** A request of a {@link StrategyPattern}. */
export type StrategyRequest = ConsumerRequest & { readonly pattern: StrategyPattern };

/** Whether the request's in-repo handler is built with `createConsumer` (every pattern but SQL). */
export function isStrategyRequest(request: ConsumerRequest): request is StrategyRequest {
  return request.pattern !== Pattern.SQL;
}

/** One builder per pattern (of `P`) for the envelope sources (SQS, Kinesis) and one for DynamoDB Streams, where the event is the change itself. */
export type PerPattern<T, P extends Pattern = Pattern> = Readonly<Record<P, readonly [envelope: () => T, stream: () => T]>>;

/** The request's variant: its pattern's builder for its kind of source. */
export function variantOf<T, P extends Pattern>(request: ConsumerRequest & { readonly pattern: P }, variants: PerPattern<T, P>): T {
  const [envelope, stream] = variants[request.pattern];
  return request.source === Source.DYNAMODB_STREAM ? stream() : envelope();
}
