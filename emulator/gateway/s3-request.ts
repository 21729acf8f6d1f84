/**
 * An S3 request as the gateway in front of fauxqs's S3 reads it: the operation its method, path and
 * query name (Amazon S3 API Reference), its bucket and key, and the S3 condition keys it sets.
 *
 * The reading follows what the engine will do with the request, not what the client says it is:
 * fauxqs routes by method and path, runs a few operations on query flags (`uploads`, `uploadId`,
 * `partNumber`, `delete`) and ignores every other flag, so `PUT /bucket/key?acl` would overwrite
 * the object. Only the operations fauxqs serves (and `PutBucketVersioning`, which local mode's
 * provisioning sends) are read; any other query flag, or a method and path that name none of them,
 * leaves the request unclassified, and the contract layer refuses it. A virtual-hosted request
 * (the bucket in the `Host`) is read as fauxqs rewrites it; the keys of a DeleteObjects body are
 * read as fauxqs reads them, so that the key decided is the key deleted.
 */
import type { IncomingMessage } from 'node:http';
import type { ConditionValues, S3RequestInput } from '../iam';

/** An S3 request the gateway can decide. */
export interface S3Request {
  readonly operation: string;
  readonly input: S3RequestInput;
}

/** Query parameters that select no other operation: listing options, a version, response overrides, a presigned URL's signature (`X-Amz-*`). */
const PLAIN_PARAMETERS = new Set(['x-id', 'list-type', 'prefix', 'delimiter', 'max-keys', 'continuation-token', 'start-after', 'encoding-type', 'fetch-owner', 'marker', 'versionId']);
const PLAIN_PREFIXES = ['response-', 'x-amz-'];

/** The flags that select an operation fauxqs serves. */
const FLAGS = ['versioning', 'uploads', 'uploadId', 'partNumber', 'delete'];
const VALUED_FLAGS = ['uploadId', 'partNumber'];

interface Parts {
  readonly method: string;
  readonly bucket?: string;
  readonly key?: string;
  /** The operation flags the query sets, sorted. */
  readonly flags: string;
  readonly url: URL;
}

/** Reads `req` as an S3 request; undefined when it names no operation local mode can decide. */
export function s3RequestOf(req: IncomingMessage, body: Buffer, presigned: boolean): S3Request | undefined {
  const parts = partsOf(req);
  if (parts === undefined) return undefined;
  const operation = operationOf(parts, req);
  if (operation === undefined) return undefined;
  const input: S3RequestInput = { Bucket: parts.bucket, Key: parts.key, ...versionOf(parts.url), ConditionKeys: conditionKeys(req, parts.url, presigned), ...detailsOf(operation, req, body) };
  return operation === 'DeleteObjects' && (input.Objects ?? []).length === 0 ? undefined : { operation, input };
}

/**
 * The path as fauxqs routes it: raw, not normalized as a URL would be (`/bucket/a/../b` names the
 * key `a/../b` there), so that the object decided is the object written; only the origin form
 * (`/...`) is read.
 */
function partsOf(req: IncomingMessage): Parts | undefined {
  const target = req.url ?? '/';
  if (!target.startsWith('/')) return undefined;
  const url = new URL(target, 'http://gateway');
  const names = [...url.searchParams.keys()];
  if (names.some((name) => !FLAGS.includes(name) && !isPlain(name))) return undefined;
  const rawPath = target.split('?')[0] ?? '/';
  const hostBucket = virtualHostBucket(req);
  const path = hostBucket === undefined ? rawPath : `/${hostBucket}${rawPath}`;
  const slash = path.indexOf('/', 1);
  const [rawBucket, rawKey] = slash === -1 ? [path.slice(1), ''] : [path.slice(1, slash), path.slice(slash + 1)];
  const [bucket, key] = [decoded(rawBucket), decoded(rawKey)];
  if (bucket === undefined || key === undefined) return undefined;
  const flags = FLAGS.filter((flag) => isSet(url, flag)).sort().join('&');
  return { method: req.method ?? 'GET', bucket: bucket || undefined, key: key || undefined, flags, url };
}

/**
 * Whether a flag selects an operation in fauxqs: `uploads`, `delete` and `versioning` by being
 * there, `uploadId` and `partNumber` only with a value (`DELETE ...?uploadId=` deletes the object).
 */
function isSet(url: URL, flag: string): boolean {
  const values = url.searchParams.getAll(flag);
  return VALUED_FLAGS.includes(flag) ? values.some((value) => value !== '') : values.length > 0;
}

function isPlain(name: string): boolean {
  return PLAIN_PARAMETERS.has(name) || PLAIN_PREFIXES.some((prefix) => name.toLowerCase().startsWith(prefix));
}

/**
 * The bucket a virtual-hosted request names in its `Host`, as fauxqs reads it: a host name with a
 * dot that is no IPv4 address, on a request that is not SQS's JSON or SNS's form.
 */
function virtualHostBucket(req: IncomingMessage): string | undefined {
  const hostname = (req.headers.host ?? '').split(':')[0] ?? '';
  const type = header(req, 'content-type') ?? '';
  if (!hostname.includes('.') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname)) return undefined;
  if (type.includes('x-www-form-urlencoded') || type.includes('x-amz-json-1.0')) return undefined;
  return hostname.slice(0, hostname.indexOf('.'));
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The operation, by method, by what the path names (the service, a bucket, an object) and by the query's flags. */
function operationOf({ method, bucket, key, flags, url }: Parts, req: IncomingMessage): string | undefined {
  if (bucket === undefined) return method === 'GET' && flags === '' ? 'ListBuckets' : undefined;
  if (key === undefined) {
    const operation = BUCKET_OPERATIONS[`${method} ${flags}`];
    return operation === 'ListObjects' && url.searchParams.get('list-type') === '2' ? 'ListObjectsV2' : operation;
  }
  // fauxqs copies for any non-empty `x-amz-copy-source` on a plain put.
  if (method === 'PUT' && flags === '' && header(req, 'x-amz-copy-source')) return 'CopyObject';
  return OBJECT_OPERATIONS[`${method} ${flags}`];
}

const BUCKET_OPERATIONS: Readonly<Record<string, string>> = {
  'PUT ': 'CreateBucket',
  'PUT versioning': 'PutBucketVersioning',
  'HEAD ': 'HeadBucket',
  'GET ': 'ListObjects',
  'DELETE ': 'DeleteBucket',
  'POST delete': 'DeleteObjects',
};

const OBJECT_OPERATIONS: Readonly<Record<string, string>> = {
  'PUT ': 'PutObject',
  'PUT partNumber&uploadId': 'UploadPart',
  'GET ': 'GetObject',
  'HEAD ': 'HeadObject',
  'DELETE ': 'DeleteObject',
  'DELETE uploadId': 'AbortMultipartUpload',
  'POST uploads': 'CreateMultipartUpload',
  'POST uploadId': 'CompleteMultipartUpload',
};

function versionOf(url: URL): Pick<S3RequestInput, 'VersionId'> {
  const versionId = url.searchParams.get('versionId');
  return versionId === null ? {} : { VersionId: versionId };
}

/** What the operation's permissions read beyond the path: a copy's source, a deletion's keys, a put's ACL and tags. */
function detailsOf(operation: string, req: IncomingMessage, body: Buffer): Partial<S3RequestInput> {
  const sets = { SetsAcl: Object.keys(req.headers).some((name) => name === 'x-amz-acl' || name.startsWith('x-amz-grant-')), SetsTagging: header(req, 'x-amz-tagging') !== undefined };
  if (operation === 'PutObject') return sets;
  if (operation === 'CopyObject') return { ...sets, CopySource: copySourceOf(header(req, 'x-amz-copy-source') ?? '') };
  if (operation === 'DeleteObjects') return { Objects: deletedObjects(body.toString('utf8')) };
  return {};
}

/** `x-amz-copy-source` as fauxqs reads it (decoded, a leading slash dropped, split at the first slash), with the version it names. */
function copySourceOf(raw: string): S3RequestInput['CopySource'] {
  const text = (decoded(raw) ?? raw).replace(/^\//, '');
  const slash = text.indexOf('/');
  const versionId = /[?&]versionId=([^&]+)/.exec(raw)?.[1];
  return slash === -1 ? undefined : { Bucket: text.slice(0, slash), Key: text.slice(slash + 1), ...(versionId !== undefined && { VersionId: decoded(versionId) ?? versionId }) };
}

/**
 * The keys a DeleteObjects body names, read as fauxqs reads them (every `<Key>`, entities replaced
 * one after another), each with the `<VersionId>` of its `<Object>`.
 */
function deletedObjects(body: string): NonNullable<S3RequestInput['Objects']> {
  const versions = new Map<string, string>();
  for (const [, object = ''] of body.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
    const key = /<Key>([\s\S]*?)<\/Key>/.exec(object)?.[1];
    const version = /<VersionId>([\s\S]*?)<\/VersionId>/.exec(object)?.[1];
    if (key !== undefined && version !== undefined) versions.set(unescaped(key), unescaped(version));
  }
  return [...body.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map(([, raw = '']) => {
    const key = unescaped(raw);
    const version = versions.get(key);
    return version === undefined ? { Key: key } : { Key: key, VersionId: version };
  });
}

function unescaped(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&apos;', "'");
}

/**
 * The S3 condition keys the request sets (Service Authorization Reference, "Condition keys for
 * Amazon S3"), `null` for those it leaves out: a header it does not send, a listing option it does
 * not give, an access point it does not go through.
 */
function conditionKeys(req: IncomingMessage, url: URL, presigned: boolean): ConditionValues {
  const fromHeader = (name: string): string | null => header(req, name) ?? null;
  const fromQuery = (name: string): string | null => url.searchParams.get(name);
  return {
    's3:authType': presigned ? 'REST-QUERY-STRING' : 'REST-HEADER',
    's3:signatureversion': 'AWS4-HMAC-SHA256',
    ...Object.fromEntries(HEADER_KEYS.map((name) => [`s3:${name}`, fromHeader(name)])),
    's3:prefix': fromQuery('prefix'),
    's3:delimiter': fromQuery('delimiter'),
    's3:max-keys': fromQuery('max-keys'),
    's3:VersionId': fromQuery('versionId'),
    's3:DataAccessPointArn': null,
    's3:DataAccessPointAccount': null,
    's3:AccessPointNetworkOrigin': null,
  };
}

const HEADER_KEYS = [
  'x-amz-acl',
  'x-amz-content-sha256',
  'x-amz-copy-source',
  'x-amz-metadata-directive',
  'x-amz-server-side-encryption',
  'x-amz-server-side-encryption-aws-kms-key-id',
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
];

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
