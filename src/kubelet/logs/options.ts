/**
 * What a runtime needs to serve one container's log (the kubelet's
 * LogOptions, from v1.PodLogOptions): `previous` and the container are
 * resolved before a runtime sees the request.
 */
export interface ContainerLogOptions {
  /** Keep the stream open and send new lines until the container stops. */
  follow: boolean;
  /** Only the last N lines (all when undefined). */
  tailLines?: number;
  /** Only lines written at or after this time (sinceTime, or now - sinceSeconds). */
  since?: Date;
  /** Prefix each line with its RFC3339NanoFixed timestamp and a space. */
  timestamps: boolean;
  /** Stop after this many bytes of output (timestamps included). */
  limitBytes?: number;
}
