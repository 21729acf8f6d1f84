/** The query protocol's XML error bodies, which local mode's gateway, contract layer and IAM answer SNS and SQS clients with. */
import { escapeXml, QUERY_XML_NAMESPACES, snsErrorResponse, sqsErrorResponse } from '../../aws/error-xml';

test('the five XML specials become entities, ampersands first, and nothing else changes', () => {
  expect(escapeXml(`a & b < c > d "e" 'f' &amp;`)).toBe('a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos; &amp;amp;');
  expect(escapeXml('Invalid parameter: Message — é, 😀')).toBe('Invalid parameter: Message — é, 😀');
});

test('SNS: ErrorResponse in its namespace, every text escaped', () => {
  expect(snsErrorResponse({ fault: 'Sender', code: 'InvalidParameter', message: 'Subject <100 & "printable"', requestId: 'r-1' })).toBe(
    `<ErrorResponse xmlns="${QUERY_XML_NAMESPACES.sns}"><Error><Type>Sender</Type><Code>InvalidParameter</Code>` +
      '<Message>Subject &lt;100 &amp; &quot;printable&quot;</Message></Error><RequestId>r-1</RequestId></ErrorResponse>',
  );
});

test('SQS over the query protocol: the XML declaration, its namespace and an empty Detail', () => {
  expect(sqsErrorResponse({ fault: 'Receiver', code: 'InternalError', message: "it's down", requestId: 'r-2' })).toBe(
    `<?xml version="1.0"?><ErrorResponse xmlns="${QUERY_XML_NAMESPACES.sqs}"><Error><Type>Receiver</Type><Code>InternalError</Code>` +
      '<Message>it&apos;s down</Message><Detail/></Error><RequestId>r-2</RequestId></ErrorResponse>',
  );
});
