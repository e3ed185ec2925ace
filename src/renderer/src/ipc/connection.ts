import { create } from 'zustand';

/**
 * Whether the page reaches the Switchboard core. Under Electron it always does (the core is this app); in
 * browser mode the server may stop: every view that shows liveness (agents, session status, Send) says so.
 */
export interface ConnectionState {
  connected: boolean;
  /** When the connection was lost (null: connected). */
  lostAt: number | null;
}

export const useConnection = create<ConnectionState>(() => ({ connected: true, lostAt: null }));

export const setConnected = (connected: boolean): void =>
  useConnection.setState((s) => (s.connected === connected ? s : { connected, lostAt: connected ? null : Date.now() }));
