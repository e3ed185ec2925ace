import { z } from 'zod';
import { event, request } from './define';

export const storeStatusSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), path: z.string() }),
  z.object({
    ok: z.literal(false),
    path: z.string(),
    /** What SQLite said, e.g. "file is not a database". */
    message: z.string(),
    kind: z.enum(['corrupt', 'unreadable', 'locked', 'newer_schema']),
  }),
]);
export type StoreStatus = z.infer<typeof storeStatusSchema>;

export const appInfoSchema = z.object({
  version: z.string(),
  transport: z.enum(['electron', 'browser']),
  platform: z.string(),
  dataDir: z.string(),
  homeDir: z.string(),
  store: storeStatusSchema,
  /** Of the main process: electron and chrome are null in browser mode (the browser is the renderer then). */
  versions: z.object({ node: z.string(), electron: z.string().nullable(), chrome: z.string().nullable() }),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const appRequests = {
  'app.info': request(z.object({}).strict(), appInfoSchema),
  /** Recovery from a corrupt or unreadable store: the old file is renamed aside (kept), a fresh one created. */
  'app.resetStore': request(z.object({}).strict(), z.object({ movedTo: z.string(), store: storeStatusSchema })),
  /** Opens an http(s) link in the system browser (never inside the app). */
  'app.openExternal': request(
    z.object({ url: z.string().url().max(8192).refine((u) => /^https?:\/\//i.test(u), 'only http(s) links') }).strict(),
    z.object({ opened: z.boolean() }),
  ),
} as const;

/** Progress of a store migration that rewrites existing data (migrations/0013: compaction), for a progress bar. */
export const storeMigrationSchema = z.object({
  phase: z.enum(['indexing', 'packing', 'vacuuming', 'done']),
  /** Work done and to do in this phase: entries and messages to index, then sessions to compact. */
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** The store's messages migrated per second so far (null until there is a measure). */
  eventsPerSecond: z.number().nonnegative().nullable(),
});
export type StoreMigration = z.infer<typeof storeMigrationSchema>;

export const appEvents = {
  'app.storeMigration': event(storeMigrationSchema),
  'app.notice': event(z.object({ level: z.enum(['info', 'warning', 'error']), message: z.string() })),
} as const;
