import { mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRegularFile } from '../platform/regular-file';
import { errorMessage } from './errors';
import { httpGet, readBody, statusError } from './http';
import { parseRegistry, type ParsedRegistry } from './validate';

export interface FetcherOptions {
  /** <dataDir>/registry: the last good copy lives here. */
  cacheDir: string;
  /** Idle timeout of the registry request. */
  timeoutMs: number;
  maxBytes: number;
  now?: () => number;
}

/** What is on disk: the raw body of the last copy that parsed, with its validators. */
interface CacheFile {
  url: string;
  etag: string | null;
  lastModified: string | null;
  fetchedAt: number;
  checkedAt: number;
  body: string;
}

export interface RegistryState {
  /** The URL of the last refresh (or the configured one before any). */
  url: string;
  /** Where `registry` came from. */
  dataUrl: string | null;
  registry: ParsedRegistry | null;
  origin: 'network' | 'cache' | 'none';
  fetchedAt: number | null;
  checkedAt: number | null;
  notModified: boolean;
  error: string | null;
}

/**
 * Fetches registry.json with conditional requests, keeps the last good copy in the data dir, and
 * falls back to it (reporting why) when the network or the document fails.
 */
export class RegistryFetcher {
  private cache: CacheFile | null = null;
  private loaded = false;
  private state: RegistryState;
  private inflight: Promise<RegistryState> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly options: FetcherOptions,
    initialUrl: string,
  ) {
    this.now = options.now ?? Date.now;
    this.state = { url: initialUrl, dataUrl: null, registry: null, origin: 'none', fetchedAt: null, checkedAt: null, notModified: false, error: null };
  }

  private get cacheFile(): string {
    return join(this.options.cacheDir, 'registry-cache.json');
  }

  /** The last good copy from disk, once (a damaged cache file counts as none). */
  private loadCache(): void {
    if (this.loaded) return;
    this.loaded = true;
    try {
      const c = JSON.parse(readFileSync(this.cacheFile, 'utf8')) as CacheFile;
      if (typeof c.body !== 'string' || typeof c.url !== 'string') return;
      const parsed = parseRegistry(c.body);
      if (!parsed.ok) return;
      this.cache = c;
      this.state = {
        ...this.state,
        dataUrl: c.url,
        registry: parsed.registry,
        origin: 'cache',
        fetchedAt: c.fetchedAt,
        checkedAt: c.checkedAt,
      };
    } catch {
      /* no cache yet */
    }
  }

  current(url: string): RegistryState {
    this.loadCache();
    if (!this.inflight && this.state.url !== url && this.state.origin === 'none') this.state = { ...this.state, url };
    return this.state;
  }

  get hasData(): boolean {
    this.loadCache();
    return this.state.registry !== null;
  }

  refresh(url: string): Promise<RegistryState> {
    this.loadCache();
    this.inflight ??= this.doRefresh(url).finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async doRefresh(url: string): Promise<RegistryState> {
    const now = this.now();
    try {
      if (url.startsWith('file:')) {
        let body: string;
        try {
          body = (await readRegularFile(fileURLToPath(url), { maxBytes: this.options.maxBytes })).toString('utf8');
        } catch (e) {
          throw new Error(`cannot read ${url}: ${errorMessage(e)}`);
        }
        return await this.accept(url, body, null, null, now);
      }
      const cached = this.cache && this.cache.url === url ? this.cache : null;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (cached?.etag) headers['if-none-match'] = cached.etag;
      if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
      const res = await httpGet(url, { headers, idleTimeoutMs: this.options.timeoutMs });
      if (res.status === 304 && cached) {
        res.body.resume();
        const parsed = parseRegistry(cached.body);
        if (parsed.ok) {
          this.cache = { ...cached, checkedAt: now };
          await this.writeCache(this.cache);
          this.state = { url, dataUrl: url, registry: parsed.registry, origin: 'network', fetchedAt: cached.fetchedAt, checkedAt: now, notModified: true, error: null };
          return this.state;
        }
      }
      if (res.status !== 200) {
        res.body.resume();
        throw statusError(res);
      }
      const body = (await readBody(res.body, url, this.options.maxBytes)).toString('utf8');
      const header = (name: string): string | null => {
        const v = res.headers[name];
        return typeof v === 'string' ? v : null;
      };
      return await this.accept(url, body, header('etag'), header('last-modified'), now);
    } catch (e) {
      this.state = { ...this.state, url, notModified: false, error: errorMessage(e) };
      return this.state;
    }
  }

  private async accept(url: string, body: string, etag: string | null, lastModified: string | null, now: number): Promise<RegistryState> {
    const parsed = parseRegistry(body);
    if (!parsed.ok) throw new Error(`the registry at ${url} is ${parsed.error}`);
    this.cache = { url, etag, lastModified, fetchedAt: now, checkedAt: now, body };
    await this.writeCache(this.cache);
    this.state = { url, dataUrl: url, registry: parsed.registry, origin: 'network', fetchedAt: now, checkedAt: now, notModified: false, error: null };
    return this.state;
  }

  private async writeCache(c: CacheFile): Promise<void> {
    mkdirSync(this.options.cacheDir, { recursive: true });
    const tmp = `${this.cacheFile}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await writeFile(tmp, JSON.stringify(c));
    await rename(tmp, this.cacheFile);
  }
}
