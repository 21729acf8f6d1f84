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
};

/** One builder per pattern for the envelope sources (SQS, Kinesis) and one for DynamoDB Streams, where the event is the change itself. */
export type PerPattern<T> = Readonly<Record<Pattern, readonly [envelope: () => T, stream: () => T]>>;

/** The request's variant: its pattern's builder for its kind of source. */
export function variantOf<T>(request: ConsumerRequest, variants: PerPattern<T>): T {
  const [envelope, stream] = variants[request.pattern];
  return request.source === Source.DYNAMODB_STREAM ? stream() : envelope();
}
