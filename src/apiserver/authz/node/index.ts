/**
 * The Node authorization mode: the graph, its watches, the authorizer.
 * `createNodeAuthorizer(registry)` is what --authorization-mode=Node wires.
 */
import type { Registry } from '../../../registry/registry.js';
import type { Logger } from '../../../util/log.js';
import type { Authorizer } from '../types.js';
import { NodeAuthorizer } from './authorizer.js';
import { NodeGraph } from './graph.js';
import { GraphPopulator } from './populator.js';

export { NodeGraph } from './graph.js';
export { NodeAuthorizer } from './authorizer.js';

export interface NodeAuthorization {
  authorize: Authorizer;
  /** Resolves once pods, PVs and volume attachments are in the graph. */
  start(): Promise<void>;
  close(): void;
}

export function createNodeAuthorizer(registry: Registry, logger?: Logger): NodeAuthorization {
  const graph = new NodeGraph();
  const populator = new GraphPopulator(registry, graph, logger);
  const authorizer = new NodeAuthorizer(graph);
  return { authorize: authorizer.authorize, start: () => populator.start(), close: () => populator.close() };
}
