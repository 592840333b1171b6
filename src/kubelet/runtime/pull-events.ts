/**
 * The words of the kubelet's image manager (pkg/kubelet/images
 * image_manager.go) for a pull that succeeded, shared by the runtimes that
 * pull (cri/images.ts) and the pod workers, which say them for a runtime
 * that pulls nothing (the simulated one).
 */

/**
 * Go's time.Duration String of a duration truncated to milliseconds, as the
 * kubelet prints pull times: 523ms, 1.2s, 1m2.345s, 1h0m0s.
 */
export function goDurationMs(ms: number): string {
  const total = Math.max(0, Math.trunc(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const secMs = total % 60_000;
  const sec = `${Math.floor(secMs / 1000)}${secMs % 1000 ? `.${String(secMs % 1000).padStart(3, '0').replace(/0+$/, '')}` : ''}s`;
  if (h) return `${h}h${m}m${sec}`;
  return m ? `${m}m${sec}` : sec;
}

/**
 * The Pulled event's message: `Successfully pulled image "X" in D (D
 * including waiting). Image size: N bytes.`; D is the pull's time, and the
 * time waiting for it (serialized pulls) is counted in the second one.
 */
export function successfullyPulled(image: string, ms: number, size: number): string {
  const took = goDurationMs(ms);
  return `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.`;
}
