/** Container logs in the CRI format: writing lines, and reading them back with the PodLogOptions semantics. */
export { parseCRILogLine, formatCRILogLines, fixedNanoTimestamp, rfc3339Nano } from './crilog.js';
export type { CRILogMessage, LogStream } from './crilog.js';
export type { ContainerLogOptions } from './options.js';
export { LogWriter } from './writer.js';
export { tailLineStart } from './tail.js';
export { readCRILog, pump } from './reader.js';
export type { LiveContainer, ReadLogOptions } from './reader.js';
export { podLogsDirectory, containerLogPath } from './paths.js';
