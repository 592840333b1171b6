/**
 * The request a store call is made for (upstream's context.Context), passed
 * down as a parameter: the store hands it to its hooks (admission), which
 * read the user, the RequestInfo and where warnings go. It is a parameter,
 * not an AsyncLocalStorage: while any AsyncLocalStorage is in use, Node 20
 * runs its async hooks for every promise, tick and stream of the process
 * (3-5% of the serving loop per pod create). Undefined for the server's own
 * writes (bootstrap, in-process loops), as a request's absence was before.
 *
 * The registry only carries it: the apiserver declares its fields into this
 * interface (apiserver/request-context.ts), so this layer needs not know them.
 */
export interface RequestContext {
  /**
   * The keys whose writer's turn this call chain holds (key-turns.ts): a write of one of them
   * made with this context (a hook writing the object being written) runs at once instead of
   * waiting for itself.
   */
  readonly turns?: ReadonlySet<string>;
  /**
   * True once the request is over (its deadline's 504 sent, or its client gone): as upstream's
   * cancelled context, a storage write not yet started is not started, so a client told 504 does
   * not find the object written later by a handler that outlived it.
   */
  readonly ended?: () => boolean;
}
