/** What the loop and a heavy-lane worker say to each other. */
import type { Status } from '../../api/status.js';
import type { ObjectBodyJob, ObjectBodyResult } from './object-body.js';

export interface HeavyRequest { id: number; job: ObjectBodyJob }

export type HeavyResponse =
  | { id: number; ok: true; value: ObjectBodyResult }
  | { id: number; ok: false; status: Status }
  | { id: number; ok: false; error: string };
