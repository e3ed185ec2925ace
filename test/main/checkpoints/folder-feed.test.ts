import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderFeed } from '../../../src/main/core/checkpoints/folder-changes';
import type { Host } from '../../../src/main/core/host/host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

const temps: string[] = [];
const feeds: FolderFeed[] = [];
afterEach(() => {
  for (const f of feeds.splice(0)) f.dispose();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function project(): { base: string; root: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sb-feed-')));
  temps.push(base);
  const root = join(base, 'project');
  mkdirSync(root);
  return { base, root };
}

function feedOf(root: string, watch: Host['watch']): FolderFeed {
  const local = new LocalHost();
  const feed = new FolderFeed(root, watch, (roots) => local.files(roots));
  feeds.push(feed);
  return feed;
}

describe('FolderFeed (what the next snapshot reads, from the folder watch)', () => {
  it('a folder replaced under its path (moved away, made anew) is read whole once, then watched again', async () => {
    const { base, root } = project();
    const local = new LocalHost();
    const feed = feedOf(root, (r, on, o) => local.watch(r, on, o));
    expect(await feed.take()).toEqual({ full: 'first snapshot of the folder' });
    writeFileSync(join(root, 'a.txt'), 'a');
    expect(await feed.take()).toEqual({ paths: ['a.txt'] });

    renameSync(root, join(base, 'old-project'));
    mkdirSync(root);
    writeFileSync(join(root, 'b.txt'), 'b');
    expect(await feed.take()).toMatchObject({ full: expect.stringMatching(/lost track|did not report/) });
    // The old watch followed the moved folder; before the fix every later snapshot waited for it and read it all.
    writeFileSync(join(root, 'c.txt'), 'c');
    expect(await feed.take()).toEqual({ paths: ['c.txt'] });
    writeFileSync(join(root, 'd.txt'), 'd');
    expect(await feed.take()).toEqual({ paths: ['d.txt'] });
  });

  it('a watch that goes silent is started anew: one snapshot reads the whole folder, the next only what changed', async () => {
    const { root } = project();
    const local = new LocalHost();
    let subscriptions = 0;
    // The first subscription stops reporting after the first snapshot, as a watcher whose backend was dropped does.
    let silenced = false;
    const feed = feedOf(root, async (r, on, o) => {
      const first = subscriptions++ === 0;
      return local.watch(r, (e) => {
        if (!(first && silenced)) on(e);
      }, o);
    });
    expect(await feed.take()).toEqual({ full: 'first snapshot of the folder' });
    silenced = true;
    writeFileSync(join(root, 'a.txt'), 'a');
    expect(await feed.take()).toEqual({ full: 'the watch did not report a sync within 3 s' });
    expect(subscriptions).toBe(2);
    writeFileSync(join(root, 'b.txt'), 'b');
    expect(await feed.take()).toEqual({ paths: ['b.txt'] });
  });
});
