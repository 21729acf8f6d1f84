/**
 * AWS's XML error bodies: text escaped for XML, the `<ErrorResponse>` of the query protocol
 * (`<Error>` with `Type`, `Code` and `Message`, then `RequestId`), which the AWS SDK and CLI read
 * an SNS error's code and message from, and an SQS one's over the query protocol; and S3's REST
 * `<Error>` (Amazon S3 API Reference, "Error responses": `Code`, `Message`, the error's own
 * elements, `RequestId`, no `Type`).
 */

/** The XML namespaces the services' `<ErrorResponse>` carries. */
export const QUERY_XML_NAMESPACES = {
  sns: 'http://sns.amazonaws.com/doc/2010-03-31/',
  sqs: 'http://queue.amazonaws.com/doc/2012-11-05/',
} as const;

const XML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** `text` as XML character data or a quoted attribute value: `&`, `<`, `>` and both quotes as entities. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ENTITIES[character] ?? character);
}

/** What a query protocol error body says. */
export interface QueryErrorParts {
  /** Whose fault: `Sender` (the request) or `Receiver` (the service). */
  readonly fault: 'Sender' | 'Receiver';
  readonly code: string;
  readonly message: string;
  readonly requestId: string;
}

/** SNS's `<ErrorResponse>`, every text escaped. */
export function snsErrorResponse(parts: QueryErrorParts): string {
  return errorResponse(QUERY_XML_NAMESPACES.sns, parts, '');
}

/** SQS's `<ErrorResponse>` over the query protocol: an XML declaration first, and an empty `<Detail/>` in the error. */
export function sqsErrorResponse(parts: QueryErrorParts): string {
  return `<?xml version="1.0"?>${errorResponse(QUERY_XML_NAMESPACES.sqs, parts, '<Detail/>')}`;
}

function errorResponse(namespace: string, { fault, code, message, requestId }: QueryErrorParts, detail: string): string {
  return (
    `<ErrorResponse xmlns="${namespace}"><Error><Type>${fault}</Type>` +
    `<Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message>${detail}</Error>` +
    `<RequestId>${escapeXml(requestId)}</RequestId></ErrorResponse>`
  );
}

/** What an S3 error body says: its code and message, and elements of its own (`AWSAccessKeyId` of `InvalidAccessKeyId`). */
export interface S3ErrorParts {
  readonly code: string;
  readonly message: string;
  readonly requestId: string;
  /** @default none */
  readonly elements?: Readonly<Record<string, string>>;
}

/** S3's `<Error>`, with an XML declaration, every text escaped. */
export function s3ErrorResponse({ code, message, requestId, elements = {} }: S3ErrorParts): string {
  const more = Object.entries(elements)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message>${more}<RequestId>${escapeXml(requestId)}</RequestId></Error>`;
}
