// A tiny scriptable HTTP server on 127.0.0.1 (port 0) for client tests: it records every request
// and answers from a per-test script. A script is a queue of answers per path (taken in order; the
// last one repeats), or a function for answers that depend on the request or on server state.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANSWER_SHAPES } from '../../src/api/answer-shape.js';
import { isRpc } from '../../src/api/operations.js';
import { listenOnLoopback } from './loopback-listen.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text ('' when none). */
  text: string;
  /** The same as `text`. */
  rawBody: string;
  /** The client's port: requests over one keep-alive socket share it. */
  remotePort: number | undefined;
  /** The body parsed as JSON, or undefined when empty or not JSON. */
  body: unknown;
  at: number;
}

export type Answer =
  /** `body` is sent as JSON, except a string, which is sent as it is (`''` = empty body). */
  | { status: number; body?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  /** Close the socket without answering (after delayMs): a reset / lost response. */
  | { drop: true; delayMs?: number };

export type Responder = (request: RecordedRequest, index: number) => Answer | Promise<Answer>;

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests to one path, e.g. `/v1/agents/upsert`. */
  requestsTo(path: string): RecordedRequest[];
  /** Script the answers for a path: a queue (the last answer repeats) or a function. */
  on(path: string, answers: Answer | Answer[] | Responder): void;
  /** The answer for paths with no script (default: 200 with `[]` or `{}`, as the operation answers; UNIMPLEMENTED is exported). */
  otherwise(answer: Answer | Responder): void;
  /** The same as `otherwise`. */
  setHandler(answer: Answer | Responder): void;
  close(): Promise<void>;
}

/** An empty answer of the operation's kind: `[]` for an operation that answers a list (the client checks), else `{}`. */
const EMPTY_ANSWER: Responder = (request) => ({ status: 200, body: answersWithList(request.path) ? [] : {} });

/** Whether the operation at `path` (`/v1/agents/list`, perhaps under a base path) answers a list. */
export function answersWithList(path: string): boolean {
  const rpc = /\/v1\/([^?]+)/.exec(path)?.[1]?.split('/').join('.') ?? '';
  if (!isRpc(rpc)) return false;
  const shape = ANSWER_SHAPES[rpc];
  return typeof shape === 'object' && 'list' in shape;
}
export const UNIMPLEMENTED: Answer = { status: 404, body: { error: { code: 'unimplemented', message: 'no such operation' } } };

/** `defaultAnswer` answers paths with no script (default: 200 with `[]` or `{}`, as the operation answers). */
export async function startRecordingServer(defaultAnswer: Answer | Responder = EMPTY_ANSWER): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const scripts = new Map<string, Responder>();
  let fallback: Responder = typeof defaultAnswer === 'function' ? defaultAnswer : () => defaultAnswer;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const path = req.url ?? '/';
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        text,
        rawBody: text,
        remotePort: req.socket.remotePort,
        body,
        at: Date.now(),
      };
      requests.push(recorded);
      const index = requests.filter((r) => r.path === path).length - 1;
      const responder = scripts.get(path) ?? fallback;
      Promise.resolve(responder(recorded, index)).then(
        (answer) => respond(res, answer),
        (error: unknown) => respond(res, { status: 500, text: `recording server script failed: ${String(error)}` }),
      );
    });
  });
  const { port, close } = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    on(path, answers) {
      if (typeof answers === 'function') {
        scripts.set(path, answers);
        return;
      }
      const queue = Array.isArray(answers) ? answers : [answers];
      scripts.set(path, (_request, index) => queue[Math.min(index, queue.length - 1)] as Answer);
    },
    otherwise(answer) {
      fallback = typeof answer === 'function' ? answer : () => answer;
    },
    setHandler(answer) {
      fallback = typeof answer === 'function' ? answer : () => answer;
    },
    close,
  };
}

function respond(res: ServerResponse, answer: Answer): void {
  const send = () => {
    if ('drop' in answer) {
      res.socket?.destroy();
      return;
    }
    const raw = answer.text ?? (typeof answer.body === 'string' ? answer.body : undefined);
    const text = raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
    const headers: Record<string, string> = { ...answer.headers };
    if (raw === undefined && answer.body !== undefined) headers['content-type'] = 'application/json';
    res.writeHead(answer.status, headers);
    res.end(text);
  };
  if (answer.delayMs) setTimeout(send, answer.delayMs);
  else send();
}

/** Shorthands for scripts. */
export const ok = (body?: unknown): Answer => ({ status: 200, ...(body === undefined ? {} : { body }) });
export const apiError = (status: number, code: string, message = code, extra: Partial<Extract<Answer, { status: number }>> = {}): Answer => ({
  status,
  body: { error: { code, message } },
  ...extra,
});
export const drop: Answer = { drop: true };

/** A port on 127.0.0.1 that nothing listens on (bound, then released): for connection-refused tests. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
