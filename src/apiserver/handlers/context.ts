/** What every resource handler gets: the request, its parsed info and the store. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../../registry/store.js';
import type { Registry } from '../../registry/registry.js';
import { queryValue, type RequestInfo } from '../request-info.js';
import type { Rendering } from '../negotiate.js';
import type { Logger } from '../../util/log.js';
import type { RequestContext } from '../request-context.js';

export interface HandlerContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  info: RequestInfo;
  store: Store;
  /** The request's user, RequestInfo and where warnings go: passed with every store call, for admission. */
  request: RequestContext;
  registry: Registry;
  rendering: Rendering;
  /** The client prefers application/vnd.kubernetes.protobuf (answered so for kinds that have it). */
  protobuf: boolean;
  now: Date;
  logger: Logger;
  /**
   * The request's signal, aborted when the response is over: answered, timed out (the 504 of the
   * request deadline) or its client gone. Made when first called: writes get the function and
   * call it only when they wait or retry (registry/key-turns.ts RequestSignal).
   */
  signalWhenNeeded: () => AbortSignal;
  /** Counts open watches for /metrics. */
  watchGauge: { inc(): void; dec(): void };
}

export const query = (ctx: Pick<HandlerContext, 'url'>, name: string) => queryValue(ctx.url, name);
