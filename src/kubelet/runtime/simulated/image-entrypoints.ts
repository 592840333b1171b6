/**
 * Images whose entrypoint runs until it is stopped and serves nothing the
 * simulation answers for (those that serve are listeners.ts's): the pause
 * image, which the Debug Running Pods page runs as a pod of its own
 * (`kubectl run ephemeral-demo --image=registry.k8s.io/pause:3.1
 * --restart=Never`) and which has no shell (`kubectl exec -it
 * ephemeral-demo -- sh` fails as the runtime says: exec-errors.ts).
 */
const pauseImage = /^((registry\.k8s\.io|k8s\.gcr\.io|gcr\.io\/google[-_]containers)\/)?pause(-amd64)?(:|@|$)/;

export function runsUntilStopped(image: string | undefined): boolean {
  return pauseImage.test(String(image ?? ''));
}

/** Images without a shell or any other program but their entrypoint: every exec fails to start. */
export function hasNoShell(image: string | undefined): boolean {
  return runsUntilStopped(image);
}

/**
 * gcr.io/google-samples/hello-app's tags (the Configure a Security Context page's image): built FROM
 * alpine:latest with ENTRYPOINT ["./hello-app"] (kubernetes-engine-samples' Dockerfile of the time),
 * so its shell and ps are busybox's and PID 1 is `./hello-app`.
 */
export const helloAppOnAlpine = /^gcr\.io\/google-samples\/hello-app(:|@|$)/;
