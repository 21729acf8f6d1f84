/**
 * The template's resources as the architecture page names them: by construct path
 * (`PageViewCounter/Queue`) rather than by logical id, and with the references between them.
 */
import { tryResolveString, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import type { Template } from '../../aws/cloudformation/template';

/** A resource of the template, with the names the page uses for it. */
export interface Resource {
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
  /** The construct path below the stack, without `/Resource`: `PageViewCounter/Queue`. */
  readonly path: string;
  /** A Mermaid node id: the path's letters and digits, `PageViewCounterQueue`. */
  readonly nodeId: string;
}

/** A CDK logical id ends in an 8-digit hex hash of the path; without path metadata it is all there is. */
const HASH_SUFFIX = /[0-9A-F]{8}$/;

/** Every resource of the template, by logical id. */
export function resourcesOf(template: Template): Map<string, Resource> {
  const resources = new Map<string, Resource>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const path = constructPath(logicalId, resource.Metadata);
    resources.set(logicalId, { logicalId, type: resource.Type, properties: resource.Properties ?? {}, path, nodeId: path.replace(/[^A-Za-z0-9]/g, '') });
  }
  return resources;
}

function constructPath(logicalId: string, metadata: Readonly<Record<string, unknown>> | undefined): string {
  const cdkPath = metadata?.['aws:cdk:path'];
  if (typeof cdkPath !== 'string') return logicalId.replace(HASH_SUFFIX, '');
  return cdkPath.split('/').slice(1).filter((part, index, parts) => !(part === 'Resource' && index === parts.length - 1)).join('/');
}

/** Every logical id that a value refers to through `Ref` or `Fn::GetAtt`, in order of appearance. */
export function referencedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return [record.Ref];
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return [getAtt[0]];
  if (typeof getAtt === 'string') return [getAtt.split('.')[0] ?? getAtt];
  return Object.values(record).flatMap(referencedIds);
}

/**
 * Every logical id that a value names the resource itself by, in order of appearance: a `Ref`, or an
 * `Fn::GetAtt` of a top-level attribute (`Arn`, `StreamArn`). A nested attribute names a part the
 * resource made, not the resource: `MasterUserSecret.SecretArn` is the cluster's secret.
 */
export function namedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(namedIds);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const getAtt = record['Fn::GetAtt'];
  const attribute = Array.isArray(getAtt) ? getAtt[1] : typeof getAtt === 'string' ? getAtt.split('.').slice(1).join('.') : undefined;
  if (typeof attribute === 'string' && attribute.includes('.')) return [];
  if (record.Ref !== undefined || getAtt !== undefined) return referencedIds(record);
  return Object.values(record).flatMap(namedIds);
}

/** The one resource a value names itself (see {@link namedIds}), if it names exactly one the template holds. */
export function resourceNamedBy(value: unknown, resources: ReadonlyMap<string, Resource>): Resource | undefined {
  const ids = [...new Set(namedIds(value))].filter((id) => resources.has(id));
  return ids.length === 1 ? resources.get(ids[0] as string) : undefined;
}

/**
 * A value's text with each reference left as a marker, `{{LogicalId}}` or `{{LogicalId.Attribute}}`
 * (pseudo parameters too, `{{AWS::Partition}}`): what a JSON input says before deploy fills it in.
 * Undefined when the value is not text, or uses a function that does not make text.
 */
export function textWithMarkers(value: unknown, resources: ReadonlyMap<string, Resource>): string | undefined {
  const marker = (name: string): string => `{{${name}}}`;
  const markedAttributes = (logicalId: string): Record<string, string> =>
    new Proxy({}, { get: (_, attribute) => (typeof attribute === 'string' ? marker(`${logicalId}.${attribute}`) : undefined) });
  const context: ResolveContext = {
    resources: new Map([...resources.keys()].map((logicalId) => [logicalId, { ref: marker(logicalId), attributes: markedAttributes(logicalId) }])),
    pseudo: new Proxy({}, { get: (_, name) => (typeof name === 'string' && name.startsWith('AWS::') ? marker(name) : undefined) }),
  };
  return tryResolveString(value, context);
}

/** The logical ids of the markers in a text (see {@link textWithMarkers}) that name a resource itself: `Ref`s and top-level attributes. */
export function markedIds(text: string): string[] {
  return [...text.matchAll(/\{\{([^}.]+)(?:\.([^}]+))?\}\}/g)].filter((match) => !match[2]?.includes('.')).map((match) => match[1] as string);
}

/** The one resource a value refers to, if it refers to exactly one the template holds. */
export function referenced(value: unknown, resources: ReadonlyMap<string, Resource>): Resource | undefined {
  const ids = [...new Set(referencedIds(value))].filter((id) => resources.has(id));
  return ids.length === 1 ? resources.get(ids[0] as string) : undefined;
}

/** The resources of one type, sorted by path. */
export function ofType(resources: ReadonlyMap<string, Resource>, type: string): Resource[] {
  return [...resources.values()].filter((resource) => resource.type === type).sort((a, b) => a.path.localeCompare(b.path));
}

/** A property as a number (CloudFormation allows numeric strings), or undefined. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Seconds as the page writes durations: `19 days`, `1 hour`, `181 s`. */
export function formatSeconds(seconds: number): string {
  const units: [number, string][] = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute']];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} s`;
}
