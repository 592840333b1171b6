/**
 * The modules of `k8ts server` and `k8ts up`, for both of the CLI's entries
 * (main.ts, and main-cached.ts that the launcher runs from its code cache).
 */
import type { CommandModule } from './dispatch.js';

export const loadServer = async (): Promise<CommandModule> => { const m = await import('./server.js'); return { help: m.serverHelp, run: m.runServer }; };
export const loadUp = async (): Promise<CommandModule> => { const m = await import('./up.js'); return { help: m.upHelp, run: m.runUp }; };
