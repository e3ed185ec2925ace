import { z } from 'zod';
import { event, request } from './define';
import { hostIdSchema, LOCAL_HOST_ID } from './hosts';

/** Terminals: the user's own shells (pty.*) and the terminals agents create (agentTerminal.*). */
const empty = z.object({});

export const ptyIdSchema = z.string().min(1).max(100);
const dim = z.number().int().min(1).max(1000);

export const terminalRequests = {
  /** A login shell in a pseudo-terminal (a shell tab), on this machine or an SSH host (its user's login shell). */
  'pty.createShell': request(
    z.object({ cols: dim, rows: dim, cwd: z.string().max(4096).optional(), hostId: hostIdSchema.default(LOCAL_HOST_ID) }).strict(),
    z.object({ id: ptyIdSchema, shell: z.string(), cwd: z.string() }),
  ),
  'pty.write': request(z.object({ id: ptyIdSchema, data: z.string().max(1_000_000) }).strict(), z.object({})),
  'pty.resize': request(z.object({ id: ptyIdSchema, cols: dim, rows: dim }).strict(), z.object({})),
  'pty.kill': request(z.object({ id: ptyIdSchema }).strict(), z.object({})),
  /** Everything the terminal printed so far (bounded), for a view that attaches late. */
  'pty.snapshot': request(z.object({ id: ptyIdSchema }).strict(), z.object({ data: z.string(), exited: z.boolean() })),
  /** Output of an agent terminal (also after release), for a view that attaches late. */
  'agentTerminal.snapshot': request(
    z.object({ terminalId: z.string().min(1).max(100) }).strict(),
    z.object({
      sessionId: z.string().nullable(),
      output: z.string(),
      truncated: z.boolean(),
      exit: z.object({ exitCode: z.number().int().nullable(), signal: z.string().nullable() }).nullable(),
      released: z.boolean(),
    }),
  ),
  /** Typing into an authentication terminal (agent-created terminals take no input). */
  'agentTerminal.write': request(z.object({ terminalId: z.string().min(1).max(100), data: z.string().max(1_000_000) }).strict(), empty),
  'agentTerminal.resize': request(z.object({ terminalId: z.string().min(1).max(100), cols: dim, rows: dim }).strict(), empty),
  'agentTerminal.kill': request(z.object({ terminalId: z.string().min(1).max(100) }).strict(), empty),
} as const;

export const terminalEvents = {
  'pty.data': event(z.object({ id: ptyIdSchema, data: z.string() })),
  'pty.exit': event(z.object({ id: ptyIdSchema, exitCode: z.number().int().nullable(), signal: z.number().int().nullable() })),
  'agentTerminal.data': event(z.object({ terminalId: z.string(), sessionId: z.string().nullable(), data: z.string() })),
  'agentTerminal.exit': event(
    z.object({ terminalId: z.string(), sessionId: z.string().nullable(), exitCode: z.number().int().nullable(), signal: z.string().nullable() }),
  ),
} as const;
