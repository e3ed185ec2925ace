import { IpcFailure, type IpcErrorCode } from '../../../shared/contract/failure';

/** The user (or shutdown) cancelled the operation; not a failure to report. */
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** A failure with a message meant for the user; `code` is the IPC error code it becomes. */
export class RegistryError extends IpcFailure {
  constructor(code: IpcErrorCode, message: string) {
    super(code, message);
    this.name = 'RegistryError';
  }
}

/** A network failure (refused, reset, timeout, HTTP error status). */
export class NetworkError extends RegistryError {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super('unavailable', message);
    this.name = 'NetworkError';
  }
}

/** The archive is unsafe or malformed: nothing of it is kept. */
export class ArchiveRefusedError extends RegistryError {
  constructor(reason: string) {
    super('agent_error', `refused the archive: ${reason}`);
    this.name = 'ArchiveRefusedError';
  }
}

export const isCancel = (e: unknown, signal?: AbortSignal): boolean =>
  e instanceof CancelledError || (signal?.aborted === true && !(e instanceof RegistryError));

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}
