import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupSampler, sampleGroups } from '../../../src/main/core/acp/supervisor/process-metrics';
import { eventually } from '../acp/helpers';

/** Process-group sampling on Linux: members followed from one sample to the next without a pass over /proc. */

const linux = process.platform === 'linux' && existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
let group: ChildProcess | null = null;
afterEach(() => {
  if (group?.pid) {
    try {
      process.kill(-group.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  group = null;
});

describe.skipIf(!linux)('GroupSampler', () => {
  it('follows a group as it gains and loses processes, and agrees with a full pass over /proc', async () => {
    // A shell in its own process group that starts a `sleep` when told to (a line on stdin) and stops it on the next.
    group = spawn('sh', ['-c', 'read a; sleep 60 & p=$!; read b; kill $p; wait $p; read c'], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    const pgid = group.pid!;
    // Never a second pass over /proc: what it finds after the first comes from following the members.
    const sampler = new GroupSampler(Number.POSITIVE_INFINITY);
    // Right after the spawn the shell may still be exec'ing (no resident pages yet): sampled until it runs.
    const first = await eventually(async () => {
      const s = (await sampler.sample([pgid])).get(pgid)!;
      return s.rssBytes! > 0 ? s : null;
    }, 'the shell to be sampled with its memory');
    expect(first.pids).toEqual([pgid]);
    expect(first.cpuTicks).toBeGreaterThanOrEqual(0);

    group.stdin!.write('go\n');
    const grown = await eventually(async () => {
      const s = (await sampler.sample([pgid])).get(pgid)!;
      // Right after the fork the new member may still be exec'ing (no resident pages of its own yet).
      return s.pids.length === 2 && s.rssBytes! > first.rssBytes! ? s : null;
    }, 'the sleep to join the sample, with its memory');
    const full = (await sampleGroups([pgid])).get(pgid)!;
    expect([...grown.pids].sort()).toEqual([...full.pids].sort());

    group.stdin!.write('stop\n');
    await eventually(async () => ((await sampler.sample([pgid])).get(pgid)!.pids.length === 1 ? true : null), 'the sleep to leave the sample');
  });

  it('forgets groups no longer asked for and finds new ones', async () => {
    group = spawn('sh', ['-c', 'read a'], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    const sampler = new GroupSampler(Number.POSITIVE_INFINITY);
    expect((await sampler.sample([])).size).toBe(0);
    expect((await sampler.sample([group.pid!])).get(group.pid!)!.pids).toEqual([group.pid]);
    expect((await sampler.sample([999_999_999])).get(999_999_999)!.pids).toEqual([]);
  });
});
