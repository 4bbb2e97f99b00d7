// A server that answers in bad faith (or badly): an endless body, JSON of another shape, a huge
// Keep-Alive hint, an over-long chunk extension. The real CLI must fail with a clear message that
// names the server's answer as the fault, exit 1, print no stack trace, and stay bounded.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { listenOnLoopback, type Listening } from '../helpers/loopback-listen.js';
import { rawHttpServer } from '../helpers/raw-http-server.js';

const TOKEN = 'svc_dev_hostileAnswerKey1234';
const ORGANIZATION = JSON.stringify({ id: 'org_1', slug: 'acme', name: 'Acme' });

/** What the server does with each request; set per test. */
let answer: (socket: Socket) => void = () => undefined;
let listening: Listening;
let url = '';

beforeAll(async () => {
  listening = await listenOnLoopback(rawHttpServer((socket) => answer(socket)));
  url = `http://127.0.0.1:${listening.port}`;
});
afterAll(() => listening.close());

/** Writes `head`, then `piece` for as long as the client reads. */
function endless(head: string, piece: string): (socket: Socket) => void {
  return (socket) => {
    socket.write(head);
    const pump = () => {
      while (!socket.destroyed && socket.write(piece));
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
  };
}

function json(body: string, extraHeaders = ''): (socket: Socket) => void {
  return (socket) =>
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extraHeaders}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

async function run(command: string, env: Record<string, string> = {}, extraArgs: string[] = []) {
  const started = Date.now();
  const result = await runCli([command, '--url', url, '--token', TOKEN, ...extraArgs], { env: { AGENTFORM_MAX_RETRIES: '0', ...env } });
  return { ...result, ms: Date.now() - started };
}

/** No sign of a crash: no "bug in agentform", no stack frame, no token. */
function expectCleanFailure(result: { code: number; stderr: string; stdout: string }): void {
  expect(result.code).toBe(1);
  expect(result.stderr).not.toMatch(/internal error|bug in agentform|\n\s+at /);
  expect(result.stderr + result.stdout).not.toContain(TOKEN);
}

const CHUNK = `10000\r\n${'x'.repeat(0x10000)}\r\n`;

describe('an answer larger than the limit', () => {
  it.each([
    ['a chunked body without end, the default limit', endless('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', CHUNK), {}, '64 MiB'],
    [
      'a body until the connection ends, AGENTFORM_MAX_RESPONSE_BYTES=1048576',
      endless('HTTP/1.1 200 OK\r\n\r\n', 'x'.repeat(0x10000)),
      { AGENTFORM_MAX_RESPONSE_BYTES: '1048576' },
      '1 MiB',
    ],
    ['a Content-Length of 10 GB', (socket: Socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n'), {}, '64 MiB'],
  ])('%s fails quickly, naming the limit and its variable', async (_, send, env, limit) => {
    answer = send;
    const result = await run('sandboxes', env);
    expectCleanFailure(result);
    expect(result.stderr).toContain(`the server's answer to sandboxes.list exceeded ${limit} (AGENTFORM_MAX_RESPONSE_BYTES)`);
    expect(result.ms).toBeLessThan(20_000);
  });

  it('a limit that is not a number of bytes is refused before any request', async () => {
    answer = json('[]');
    const result = await run('sandboxes', { AGENTFORM_MAX_RESPONSE_BYTES: '64MB' });
    expectCleanFailure(result);
    expect(result.stderr).toContain('AGENTFORM_MAX_RESPONSE_BYTES must be a whole number of bytes');
  });
});

describe("an answer of the wrong shape is the server's fault, naming the operation", () => {
  it.each([
    ['an object for a list', 'sandboxes', '{"items": 5}', "the server's answer to sandboxes.list is malformed: the answer is an object, not a list"],
    [
      'a list item that is not an object',
      'sandboxes',
      '[{"id": "sb_1", "state": "running"}, 7]',
      "the server's answer to sandboxes.list is malformed: [1] is a number, not an object",
    ],
    [
      'a field of another type',
      'sandboxes',
      '[{"id": "sb_1", "state": 7}]',
      "the server's answer to sandboxes.list is malformed: [0].state is a number, not a string",
    ],
    ['a list for an object', 'org', '[]', "the server's answer to organizations.get is malformed: the answer is a list, not an object"],
    ['null', 'org', 'null', "the server's answer to organizations.get is malformed: the answer is null, not an object"],
    ['an empty body', 'org', '', "the server's answer to organizations.get is malformed: the body is empty"],
    ['not JSON', 'org', '<html>', "the server's answer to organizations.get is malformed: the body is not JSON (HTTP 200)"],
  ])('%s', async (_, command, body, message) => {
    answer = json(body);
    const result = await run(command);
    expectCleanFailure(result);
    expect(result.stderr).toContain(message);
  });

  it("--json reports it as the service's fault", async () => {
    answer = json('{"items": 5}');
    const result = await run('sandboxes', {}, ['--json']);
    expectCleanFailure(result);
    expect(JSON.parse(result.stderr.trim())).toMatchObject({
      error: { code: 'api_error', fault: 'service', apiCode: 'invalid_response', rpc: 'sandboxes.list', status: 200 },
    });
  });
});

describe('timers set from what the server says', () => {
  it('a huge Keep-Alive timeout prints no warning', async () => {
    answer = json(ORGANIZATION, 'Keep-Alive: timeout=999999999\r\n');
    const result = await run('org');
    expect(result.stderr).not.toContain('Warning');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('acme');
  });
});

describe('the chunk-size line limit', () => {
  it('refuses a 60 KB chunk extension sent in one write', async () => {
    answer = (socket) =>
      socket.write(
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${ORGANIZATION.length.toString(16)};x=${'a'.repeat(60 * 1024)}\r\n${ORGANIZATION}\r\n0\r\n\r\n`,
      );
    const result = await run('org');
    expectCleanFailure(result);
    expect(result.stderr).toContain('the answer is not valid HTTP/1.1: a chunk-size line is too long');
  });

  it('refuses an answer whose lines end with a bare LF at once, not after the timeout', async () => {
    answer = (socket) => socket.write(`HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: ${ORGANIZATION.length}\n\n${ORGANIZATION}`);
    const started = Date.now();
    const result = await run('org');
    expectCleanFailure(result);
    expect(result.stderr).toContain('the answer is not valid HTTP/1.1: a line of the head ends with a bare LF');
    // The request timeout is 30 s or more; refused as the bytes arrive.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
