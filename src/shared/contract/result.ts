import type { IpcErrorCode } from './failure';

/**
 * The typed result every request resolves to, with no zod: the browser-mode server answers malformed frames
 * with it before the contract's schemas are loaded, and the page's transport uses it on its first frame.
 */
export interface IpcError {
  code: IpcErrorCode;
  message: string;
  /** For invalid_params: where the params were wrong. */
  issues?: Array<{ path: string; message: string }> | undefined;
}

/** Errors are values at the boundary: every request resolves to one of these, never a thrown string. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const err = (code: IpcErrorCode, message: string, issues?: IpcError['issues']): Result<never> => ({
  ok: false,
  error: issues ? { code, message, issues } : { code, message },
});
