/**
 * CloudWatch's embedded metric format (EMF), as Lambda's log agent reads it from a function's
 * stdout: a JSON line whose `_aws.CloudWatchMetrics` names, per namespace, the metrics the line
 * carries as top-level fields (a number, or an array of numbers) and the dimension sets whose
 * values are top-level fields too. Each dimension set makes its own metric.
 */
import { LineBuffer, type OutputSink } from '../functions/output';
import type { MetricStore } from './metric-store';
import type { MetricKey } from './types';

/** One value an EMF line carries for one metric. */
export interface EmfDatapoint {
  readonly key: MetricKey;
  readonly value: number;
  /** Epoch ms, from `_aws.Timestamp`. */
  readonly at: number;
}

interface EmfDirective {
  readonly Namespace?: unknown;
  readonly Dimensions?: unknown;
  readonly Metrics?: unknown;
}

/** The datapoints of one log line; none for a line that is not EMF (or not valid EMF). */
export function emfDatapoints(line: string): EmfDatapoint[] {
  const document = parseObject(line);
  const metadata = document?._aws as { Timestamp?: unknown; CloudWatchMetrics?: unknown } | undefined;
  if (document === undefined || typeof metadata !== 'object' || metadata === null || !Array.isArray(metadata.CloudWatchMetrics)) return [];
  const at = typeof metadata.Timestamp === 'number' ? metadata.Timestamp : Date.now();
  return (metadata.CloudWatchMetrics as EmfDirective[]).flatMap((directive) => directiveDatapoints(directive, document, at));
}

function directiveDatapoints(directive: EmfDirective, document: Record<string, unknown>, at: number): EmfDatapoint[] {
  if (typeof directive.Namespace !== 'string' || !Array.isArray(directive.Metrics)) return [];
  const namespace = directive.Namespace;
  const dimensionSets = Array.isArray(directive.Dimensions) && directive.Dimensions.length > 0 ? (directive.Dimensions as unknown[]) : [[]];
  const names = (directive.Metrics as { Name?: unknown }[]).flatMap((metric) => (typeof metric?.Name === 'string' ? [metric.Name] : []));
  return dimensionSets.flatMap((set) => {
    const dimensions = dimensionsOf(set, document);
    if (dimensions === undefined) return [];
    return names.flatMap((metricName) => valuesOf(document[metricName]).map((value) => ({ key: { namespace, metricName, dimensions }, value, at })));
  });
}

/** The dimension set's values from the document; undefined when one is missing (CloudWatch drops such a set). */
function dimensionsOf(set: unknown, document: Record<string, unknown>): Record<string, string> | undefined {
  if (!Array.isArray(set)) return undefined;
  const dimensions: Record<string, string> = {};
  for (const name of set) {
    const value = typeof name === 'string' ? document[name] : undefined;
    if (typeof value !== 'string') return undefined;
    dimensions[name as string] = value;
  }
  return dimensions;
}

function valuesOf(field: unknown): number[] {
  const values = Array.isArray(field) ? field : [field];
  return values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
}

function parseObject(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{') || !trimmed.includes('"_aws"')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An `OutputSink` that records the EMF metrics of every stdout line functions write, then passes
 * the chunk on to `next`. Lines are reassembled per function first (a chunk may end mid-line).
 */
export function emfRecorder(store: MetricStore, next: OutputSink): OutputSink {
  const lines = new LineBuffer();
  return (chunk, source) => {
    next(chunk, source);
    if (source.stream !== 'stdout') return;
    for (const line of lines.push(source.functionName, chunk)) for (const point of emfDatapoints(line)) store.put(point.key, point.value, point.at);
  };
}
