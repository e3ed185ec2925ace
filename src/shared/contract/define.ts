import { z } from 'zod';
import { ipcErrorCodes } from './failure';
import type { IpcError } from './result';

/** A request of the contract: params checked by the main process, result typed for the renderer. */
export interface RequestDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly result: R;
}

/** An event the main process pushes to every connected renderer. */
export interface EventDef<P extends z.ZodType = z.ZodType> {
  readonly payload: P;
}

export const request = <P extends z.ZodType, R extends z.ZodType>(params: P, result: R): RequestDef<P, R> => ({
  params,
  result,
});

/** An absolute path (POSIX, or a Windows drive path). */
export const absolutePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path');

export const event = <P extends z.ZodType>(payload: P): EventDef<P> => ({ payload });

export { ipcErrorCodes, IpcFailure, type IpcErrorCode } from './failure';

export { ok, err, type IpcError, type Result } from './result';

export const ipcErrorSchema = z.object({
  code: z.enum(ipcErrorCodes),
  message: z.string(),
  /** For invalid_params: where the params were wrong. */
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
}) satisfies z.ZodType<IpcError>;
