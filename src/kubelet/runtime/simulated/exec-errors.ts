/**
 * What containerd answers an exec whose program is not in the container, as
 * the kubelet passes it on (an InternalError status; kubectl prints `error:
 * Internal error occurred: error executing command in container: ...`): the
 * Debug Running Pods page's `kubectl exec -it ephemeral-demo -- sh` in the
 * pause image, which has no shell, and a program run directly that the
 * image does not have (`kubectl exec POD -- ps aux` in nginx). runc looks a
 * bare name up in $PATH, and stats a path (`/bin/bash`) as it is given.
 */
import { randomBytes } from 'node:crypto';

export function execNotFoundError(program: string): Error {
  const execID = randomBytes(32).toString('hex');
  return new Error(`Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "${execID}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": ${notFoundReason(program)}: unknown`);
}

function notFoundReason(program: string): string {
  return program.includes('/') ? `stat ${program}: no such file or directory` : 'executable file not found in $PATH';
}
