/**
 * A container's termination message on a simulated node, as the kubelet
 * reads it when the container exits (upstream kuberuntime_container.go
 * getTerminationMessage), for the Determine the Reason for Pod Failure page
 * (`echo Sleep expired > /dev/termination-log`, then `kubectl get pod
 * termination-demo -o go-template='{{range
 * .status.containerStatuses}}{{.lastState.terminated.message}}{{end}}'`):
 *
 *  1. The file at terminationMessagePath (default /dev/termination-log), as
 *     the instance wrote it into its writable layer, up to 4096 bytes.
 *  2. With terminationMessagePolicy FallbackToLogsOnError, an empty message
 *     and a non-zero exit code, the last 80 lines (at most 2048 bytes) of
 *     the instance's log instead.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import type { WritableLayer } from './layer.js';

const maxMessageBytes = 4096;
const maxLogLines = 80;
const maxLogBytes = 2048;

export function terminationMessage(spec: Container | undefined, layer: WritableLayer | undefined, exitCode: number, logTail: () => string): string | undefined {
  const path = spec?.terminationMessagePath || '/dev/termination-log';
  const file = layer?.files.get(path);
  const text = file ? file.subarray(0, maxMessageBytes).toString('utf8') : '';
  if (text || spec?.terminationMessagePolicy !== 'FallbackToLogsOnError' || exitCode === 0) return text || undefined;
  const lines = logTail().split('\n');
  if (lines.at(-1) === '') lines.pop();
  const tail = lines.slice(-maxLogLines).join('\n');
  const bytes = Buffer.from(tail);
  return (bytes.length > maxLogBytes ? bytes.subarray(bytes.length - maxLogBytes).toString('utf8') : tail) || undefined;
}
