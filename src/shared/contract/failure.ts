/** The contract's error codes and the exception that ends a request with one: no zod, so that code run on an SSH host (the helper) can use it too. */
export const ipcErrorCodes = [
  'invalid_params',
  'unknown_method',
  'not_found',
  'conflict',
  'forbidden',
  'unavailable',
  'agent_error',
  'internal',
] as const;
export type IpcErrorCode = (typeof ipcErrorCodes)[number];

/** Thrown inside the main process to end a request with a specific typed error. */
export class IpcFailure extends Error {
  constructor(
    readonly code: IpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IpcFailure';
  }
}
