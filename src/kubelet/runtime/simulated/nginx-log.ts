/**
 * What the official nginx image (docker.io/library/nginx) writes to its log,
 * so `kubectl logs deploy/nginx` (the kubectl Quick Reference's "dump Pod
 * logs for a Deployment") shows what it shows on a real node:
 *
 *  - at start, since 1.19 (the image's docker-entrypoint.sh and its
 *    /docker-entrypoint.d scripts; 15-local-resolvers.envsh since 1.25.3),
 *    then nginx's own notices (its error log is /dev/stderr): the version,
 *    the Debian build (bookworm's gcc 12.2.0 since 1.25; bullseye's 10.2.1
 *    before), the node's kernel, containerd's RLIMIT_NOFILE and one worker
 *    per CPU (`worker_processes auto`; the simulated node's 4). Before 1.19
 *    the image had no such entrypoint and nginx wrote nothing at start;
 *  - on stop (SIGQUIT, the image's STOPSIGNAL), the workers' graceful
 *    shutdown and the master's exit;
 *  - per request, its access log (/dev/stdout) in the image's `main` format:
 *    `$remote_addr - $remote_user [$time_local] "$request" $status
 *    $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"`.
 *
 * Alpine tags (`nginx:alpine`, `1.27-alpine`) and the images' PIDs differ in
 * small ways (gcc, PIDs) not written out here.
 */
import type { IncomingMessage } from 'node:http';
import { release } from 'node:os';

/** The CPUs a simulated node reports (agent.ts capacity), hence nginx's worker count under `worker_processes auto`. */
const simulatedNodeCPUs = 4;

/** A version as [major, minor, patch], or undefined for a tag that names none (latest, mainline, stable, alpine). */
function versionOf(tag: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 99)] : undefined;
}

const atLeast = (v: [number, number, number], want: [number, number, number]) =>
  v[0] !== want[0] ? v[0] > want[0] : v[1] !== want[1] ? v[1] > want[1] : v[2] >= want[2];

const pad = (n: number) => String(n).padStart(2, '0');

/** nginx's error-log time: `2026/12/05 05:10:48` (the container's TZ is UTC). */
const errorLogTime = (d: Date) => `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The access log's $time_local: `05/Dec/2026:05:10:48 +0000`. */
const timeLocal = (d: Date) => `${pad(d.getUTCDate())}/${months[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

/**
 * The last release of each nginx line, which the official image's x.y tag (and its major tag) ends up on
 * (`nginx:1.25` runs 1.25.5); newer lines than the table, `latest`, `stable` and `alpine` run 1.27.3.
 */
const lastRelease: Record<string, string> = {
  '1.14': '1.14.2', '1.15': '1.15.12', '1.16': '1.16.1', '1.17': '1.17.10', '1.18': '1.18.0', '1.19': '1.19.10', '1.20': '1.20.2',
  '1.21': '1.21.6', '1.22': '1.22.1', '1.23': '1.23.4', '1.24': '1.24.0', '1.25': '1.25.5', '1.26': '1.26.3',
};

/** The nginx version an official image's tag runs: the tag's x.y.z, the last x.y.z of an x.y tag, else 1.27.3 (listeners.ts's `Server` header says the same). */
export function nginxImageVersion(tag: string): string {
  const v = tag.split('-')[0]!;
  if (/^\d+\.\d+\.\d+$/.test(v)) return v;
  return lastRelease[v] ?? '1.27.3';
}

/** The start of an official nginx container's log for the image's tag ('' before 1.19: nothing is written). */
export function nginxStartLog(tag: string, startedAt: Date): string {
  const version = nginxImageVersion(tag);
  const v = versionOf(tag) ?? versionOf(version)!;
  if (!atLeast(v, [1, 19, 0])) return '';
  const e = '/docker-entrypoint.sh';
  const ipv6 = '10-listen-on-ipv6-by-default.sh';
  const lines = [
    `${e}: /docker-entrypoint.d/ is not empty, will attempt to perform configuration`,
    `${e}: Looking for shell scripts in /docker-entrypoint.d/`,
    `${e}: Launching /docker-entrypoint.d/${ipv6}`,
    `${ipv6}: info: Getting the checksum of /etc/nginx/conf.d/default.conf`,
    `${ipv6}: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf`,
    ...(atLeast(v, [1, 25, 3]) ? [`${e}: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh`] : []),
    `${e}: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh`,
    `${e}: Launching /docker-entrypoint.d/30-tune-worker-processes.sh`,
    `${e}: Configuration complete; ready for start up`,
  ];
  const t = errorLogTime(startedAt);
  const notice = (text: string) => `${t} [notice] 1#1: ${text}`;
  const gcc = atLeast(v, [1, 25, 0]) ? 'gcc 12.2.0 (Debian 12.2.0-14)' : 'gcc 10.2.1 20210110 (Debian 10.2.1-6)';
  lines.push(
    notice('using the "epoll" event method'),
    notice(`nginx/${version}`),
    notice(`built by ${gcc} `),
    notice(`OS: Linux ${release()}`),
    notice('getrlimit(RLIMIT_NOFILE): 1048576:1048576'),
    notice('start worker processes'),
  );
  for (let i = 0; i < simulatedNodeCPUs; i++) lines.push(notice(`start worker process ${29 + i}`));
  return `${lines.join('\n')}\n`;
}

/**
 * What nginx writes when the kubelet stops it: the image's STOPSIGNAL is
 * SIGQUIT, a graceful shutdown of each worker, then the master's exit ('' where
 * the start log is: nginx before 1.19 logged no notices).
 */
export function nginxStopLog(tag: string, stoppedAt: Date): string {
  if (nginxStartLog(tag, stoppedAt) === '') return '';
  const t = errorLogTime(stoppedAt);
  const workers = Array.from({ length: simulatedNodeCPUs }, (_, i) => 29 + i);
  const lines = [`${t} [notice] 1#1: signal 3 (SIGQUIT) received, shutting down`];
  for (const w of workers) lines.push(`${t} [notice] ${w}#${w}: gracefully shutting down`, `${t} [notice] ${w}#${w}: exiting`, `${t} [notice] ${w}#${w}: exit`);
  for (const w of workers) lines.push(`${t} [notice] 1#1: signal 17 (SIGCHLD) received from ${w}`, `${t} [notice] 1#1: worker process ${w} exited with code 0`, `${t} [notice] 1#1: signal 29 (SIGIO) received`);
  lines.push(`${t} [notice] 1#1: exit`);
  return `${lines.join('\n')}\n`;
}

/** One access-log line for a request answered with `status` and `bytes` of body. */
export function nginxAccessLog(req: IncomingMessage, status: number, bytes: number, remoteAddress: string, now: Date): string {
  const h = (name: string) => {
    const v = req.headers[name];
    return (Array.isArray(v) ? v.join(', ') : v) || '-';
  };
  return `${remoteAddress} - - [${timeLocal(now)}] "${req.method} ${req.url} HTTP/${req.httpVersion}" ${status} ${bytes} "${h('referer')}" "${h('user-agent')}" "${h('x-forwarded-for')}"\n`;
}
