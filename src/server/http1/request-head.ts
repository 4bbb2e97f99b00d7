// What a request's head says (RFC 9112): method, target, version, header fields, how its body is
// framed, whether the connection may carry another request after it, and whether the client waits
// for `100 Continue` before sending the body. Pure. Anything malformed or ambiguous is refused with
// the status to answer (then the connection closes): a server that guesses at framing is how
// request smuggling works.
import type { RequestHeaders } from '../http-port.js';
import { contentLengthOf, headerFieldsOf, HTTP_TOKEN, listsToken, transferCodingsOf, type Framing } from '../../api/http1/message-parser.js';

export interface RequestHead {
  method: string;
  /** The request-target as sent (origin-form, `/v1/...`, for every operation). */
  target: string;
  /** HTTP/1.`minor`. */
  minor: 0 | 1;
  headers: RequestHeaders;
  framing: Framing;
  /** The client lets the connection carry another request after this one. */
  keepAlive: boolean;
  /** `Expect: 100-continue`: the client waits for an interim answer before sending the body. */
  expectsContinue: boolean;
}

/** A request refused before any handler sees it; `status` is the answer, and the connection closes after. */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(reason);
  }
}

export const refuseRequest = (reason: string, status = 400): HttpRefusal => new HttpRefusal(status, reason);

const REQUEST_LINE = /^([^ ]+) ([^ ]+) HTTP\/(\d)\.(\d)$/;
// Visible ASCII only: a space or a control character inside the target is not a target.
const TARGET = /^[\x21-\x7e]+$/;

export function requestHeadOf(text: string): RequestHead {
  const lines = text.split('\r\n');
  // Empty lines before the request line are skipped (RFC 9112 §2.2: a client may send one after a body).
  while (lines.length > 1 && lines[0] === '') lines.shift();
  const line = REQUEST_LINE.exec(lines[0]!);
  if (!line || !HTTP_TOKEN.test(line[1]!) || !TARGET.test(line[2]!)) throw refuseRequest(`unexpected request line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
  if (line[3] !== '1' || (line[4] !== '0' && line[4] !== '1')) throw refuseRequest(`HTTP/${line[3]}.${line[4]} is not supported (HTTP/1.1 is)`, 505);
  const minor = line[4] === '1' ? 1 : 0;
  const fields = headerFieldsOf(lines, refuseRequest);
  // Repeats are joined as node joins them; set-cookie's stay a list, as in node's own headers.
  const headers = fields as RequestHeaders;
  // At most one Host, and one in HTTP/1.1 (RFC 9112 §3.2); repeats would otherwise be hidden, as the first wins.
  const hosts = lines.filter((field) => /^host:/i.test(field)).length;
  if (hosts > 1) throw refuseRequest('more than one Host field');
  if (minor === 1 && hosts === 0) throw refuseRequest('an HTTP/1.1 request without a Host field');
  // Expect is HTTP/1.1's (an HTTP/1.0 client's is ignored, as node does).
  const expect = minor === 1 ? headers.expect : undefined;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue')
    throw refuseRequest(`the expectation ${JSON.stringify(expect.slice(0, 40))} cannot be met`, 417);
  return {
    method: line[1]!,
    target: line[2]!,
    minor,
    headers,
    framing: framingOf(headers, minor),
    keepAlive: minor === 1 ? !listsToken(headers.connection, 'close') : listsToken(headers.connection, 'keep-alive'),
    expectsContinue: expect !== undefined,
  };
}

/** RFC 9112 §6.3, with both ambiguous cases (a length beside a coding; a coding in HTTP/1.0) refused. */
function framingOf(headers: RequestHeaders, minor: 0 | 1): Framing {
  const transferEncoding = headers['transfer-encoding'];
  if (transferEncoding !== undefined) {
    if (minor === 0) throw refuseRequest('HTTP/1.0 has no transfer codings');
    if (headers['content-length'] !== undefined) throw refuseRequest('both Transfer-Encoding and Content-Length');
    const codings = transferCodingsOf(transferEncoding);
    if (codings.length !== 1 || codings[0] !== 'chunked')
      throw refuseRequest(`the transfer coding ${JSON.stringify(codings.join(', ').slice(0, 80))} is not supported (chunked is)`, 501);
    return { kind: 'chunked' };
  }
  // A request without either has no body (never one delimited by the connection's end).
  return { kind: 'length', length: headers['content-length'] === undefined ? 0 : contentLengthOf(headers['content-length'], refuseRequest) };
}
