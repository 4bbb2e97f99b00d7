import type { RequestOf, ResponseOf, Rpc } from '../../api/operations.js';
import type { HandlerContext } from '../context.js';

export type Handler<R extends Rpc> = (ctx: HandlerContext, body: RequestOf<R>) => ResponseOf<R> | Promise<ResponseOf<R>>;
/** The handlers of one API group, e.g. `GroupHandlers<'agents'>` must cover agents.* exactly. */
export type GroupHandlers<G extends string> = { [R in Extract<Rpc, `${G}.${string}`>]: Handler<R> };
/** Handlers for exactly the operations `K`. */
export type Handlers<K extends Rpc> = { [R in K]: Handler<R> };
