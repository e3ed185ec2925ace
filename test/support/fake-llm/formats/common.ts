import { randomBytes } from 'node:crypto';
import type { ConvMessage, JsonSchema, ToolSpec } from '../types.js';

/** What a wire format extracts from a request body. */
export interface ParsedBody {
  model: string;
  stream: boolean;
  tools: ToolSpec[];
  messages: ConvMessage[];
  system: string;
  responseSchema?: JsonSchema;
}

/** How a format writes its reply; implemented by the server over a node:http response. */
export interface ReplySink {
  json(status: number, body: unknown): void;
  startSse(): void;
  sse(frame: string): void;
  end(): void;
  /** The agent hung up (e.g. cancelled the turn). */
  closed(): boolean;
  /** Resolves after ms, or early when the connection closes. */
  sleep(ms: number): Promise<void>;
}

export function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Text content of a string, a content-block array, or anything else (JSON). */
export function flattenText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((b) => {
        const r = asRecord(b);
        return typeof r['text'] === 'string' ? r['text'] : typeof b === 'string' ? b : '';
      })
      .join('');
  }
  const r = asRecord(v);
  if (typeof r['text'] === 'string') return r['text'];
  return JSON.stringify(v);
}

export function randomId(): string {
  return randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
}
