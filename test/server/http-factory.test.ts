// The off switch picks the local control plane's HTTP/1.1 server (src/server/http-factory.ts).
import { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/server/http-factory.js';
import { NodeHttpServer } from '../../src/server/http-server.js';
import { Http1Server } from '../../src/server/http1/server.js';

const LIMITS = { headersMs: 1_000, requestMs: 1_000, keepAliveMs: 1_000, maxBodyBytes: 1024 };

describe('createHttpServer', () => {
  it.each([
    { env: {}, name: 'the hand-written', kind: Http1Server },
    { env: { AGENTFORM_OPTIMIZATIONS: 'on' }, name: 'the hand-written', kind: Http1Server },
    { env: { AGENTFORM_OPTIMIZATIONS: 'off' }, name: "node's", kind: NodeHttpServer },
    { env: { AGENTFORM_OPTIMIZATIONS: '0' }, name: "node's", kind: NodeHttpServer },
    { env: { AGENTFORM_OPTIMIZATIONS: '-server-http' }, name: "node's", kind: NodeHttpServer },
    { env: { AGENTFORM_OPTIMIZATIONS: '-client-http' }, name: 'the hand-written', kind: Http1Server },
  ])('with $env it is $name server, an http.Server', ({ env, kind }) => {
    const server = createHttpServer(LIMITS, () => undefined, env);
    expect(server).toBeInstanceOf(kind);
    expect(server).toBeInstanceOf(Server);
  });
});
