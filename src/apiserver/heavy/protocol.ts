/** What the loop and a heavy-lane worker say to each other. */
import type { Status } from '../../api/status.js';
import type { ObjectBodyJob, ObjectBodyResult } from './object-body.js';

export interface HeavyRequest { id: number; job: ObjectBodyJob }

export type HeavyResponse =
  | { id: number; ok: true; value: ObjectBodyResult }
  | { id: number; ok: false; status: Status }
  | { id: number; ok: false; error: string };

/**
 * A worker's first message, before any answer: its kernel thread id, so the pool can read the
 * thread's CPU time for a job's budget (undefined where it cannot: the budget counts wall time),
 * and the CPU its start took, which is no job's.
 */
export interface HeavyHello { hello: true; tid: number | undefined; startCpuMs: number | undefined }
