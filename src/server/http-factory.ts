// Which HTTP/1.1 server the local control plane runs (http-port.ts): the hand-written one
// (http1/), which spends less CPU a request, or node's own (http-server.ts) with the speed-ups
// off, the way out should the hand-written one be suspected.
import type { Server } from 'node:http';
import { optimizationsOff } from '../util/optimizations.js';
import { NodeHttpServer } from './http-server.js';
import type { RequestHandler, ServerLimits } from './http-port.js';
import { Http1Server } from './http1/server.js';

export function createHttpServer(limits: ServerLimits, onRequest: RequestHandler, env: NodeJS.ProcessEnv = process.env): Server {
  return optimizationsOff(env, 'server-http') ? new NodeHttpServer(limits, onRequest) : new Http1Server(limits, onRequest);
}
