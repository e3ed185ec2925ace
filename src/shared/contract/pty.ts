import { z } from 'zod';
import { event, request } from './define';

export const ptyIdSchema = z.string().min(1).max(100);
const dim = z.number().int().min(1).max(1000);

export const ptyRequests = {
  /** A login shell in a pseudo-terminal (a shell tab). */
  'pty.createShell': request(
    z.object({ cols: dim, rows: dim, cwd: z.string().max(4096).optional() }).strict(),
    z.object({ id: ptyIdSchema, shell: z.string(), cwd: z.string() }),
  ),
  'pty.write': request(z.object({ id: ptyIdSchema, data: z.string().max(1_000_000) }).strict(), z.object({})),
  'pty.resize': request(z.object({ id: ptyIdSchema, cols: dim, rows: dim }).strict(), z.object({})),
  'pty.kill': request(z.object({ id: ptyIdSchema }).strict(), z.object({})),
  /** Everything the terminal printed so far (bounded), for a view that attaches late. */
  'pty.snapshot': request(z.object({ id: ptyIdSchema }).strict(), z.object({ data: z.string(), exited: z.boolean() })),
} as const;

export const ptyEvents = {
  'pty.data': event(z.object({ id: ptyIdSchema, data: z.string() })),
  'pty.exit': event(z.object({ id: ptyIdSchema, exitCode: z.number().int().nullable(), signal: z.number().int().nullable() })),
} as const;
