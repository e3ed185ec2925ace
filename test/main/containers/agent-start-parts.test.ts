/**
 * The parts of a container agent's start that replaced engine calls of their own, on real processes of this
 * machine (no container needed to see them): the node gate that runs in the agent's own exec, and the links
 * of the agent's program that the container mounts read-only.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkPrograms, outsideFolders, programCandidates } from '../../../src/main/core/containers/agent-programs';
import { NODE_GATE_NONE, NODE_GATE_OLD, nodeGate } from '../../../src/main/core/containers/node-check';
import { NodeGatedProcess } from '../../../src/main/core/containers/node-gated-process';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

let root: string;
const host = new LocalHost();

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-agent-start-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A PATH whose `node` says `version` (none: no node on it). */
function pathWithNode(name: string, version: string | null): string {
  const dir = join(root, name);
  mkdirSync(dir);
  if (version) {
    writeFileSync(join(dir, 'node'), `#!/bin/sh\n[ "$1" = --version ] && { echo ${version}; exit 0; }\necho "ran $*"\n`);
    chmodSync(join(dir, 'node'), 0o755);
  }
  // The gate needs only the shell's builtins: nothing else on its PATH, so this machine's own node is not found.
  return dir;
}

async function gated(path: string): Promise<{ out: string; err: string; exit: { code: number | null; error: string | null } }> {
  const proc = new NodeGatedProcess(host.spawn(nodeGate(['node', 'agent.mjs', '--acp']), { env: { PATH: path }, stdin: 'ignore' }));
  let out = '';
  let err = '';
  proc.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  proc.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exit = await proc.closed;
  return { out, err, exit };
}

describe("the node gate (the container's node checked in the agent's own exec)", () => {
  it('runs the agent when node is 20 or later, its output and exit untouched', async () => {
    const { out, exit } = await gated(pathWithNode('node22', 'v22.3.0'));
    expect(out).toBe('ran agent.mjs --acp\n');
    expect(exit).toMatchObject({ code: 0, error: null });
  });

  it('an image without node: the exit says so in the sentence the start shows, and the agent never ran', async () => {
    const { out, exit } = await gated(pathWithNode('none', null));
    expect(out).toBe('');
    expect(exit.error).toBe('this image has no node: choose an image with node 20+, or add the node feature');
  });

  it('what the gate printed is lost (an exec that ends at once, under load): its exit alone names what the image lacks', async () => {
    const silent = async (code: number) => (await new NodeGatedProcess(host.spawn(['/bin/sh', '-c', `exit ${code}`], { env: {}, stdin: 'ignore' })).closed).error;
    expect(await silent(NODE_GATE_NONE)).toBe('this image has no node: choose an image with node 20+, or add the node feature');
    expect(await silent(NODE_GATE_OLD)).toBe("this image's node is older than 20: choose an image with node 20+, or add the node feature");
    // Any other exit is the agent's own, told as it is.
    expect(await silent(127)).toBeNull();
  });

  it("an image with an older node: its version is named", async () => {
    const { out, exit } = await gated(pathWithNode('node18', 'v18.19.1'));
    expect(out).toBe('');
    expect(exit.error).toBe("this image's node is v18.19.1: choose an image with node 20+, or add the node feature");
  });
});

describe("the agent's program, linked for its container's read-only mount", () => {
  it('links the program and its script into the scratch folder; never a link, a folder or a file in the session folder', async () => {
    const bin = join(root, 'programs');
    mkdirSync(bin);
    const script = join(bin, 'agent.mjs');
    writeFileSync(script, 'console.log(1);\n');
    symlinkSync(script, join(bin, 'via-link.mjs'));
    expect(programCandidates({ command: '/usr/bin/node', args: [script, '--acp'] })).toEqual(['/usr/bin/node', script]);
    expect(programCandidates({ command: 'npx', args: ['--yes', 'pkg@1'] })).toEqual([]);
    expect(programCandidates({ command: '/x/a,b', args: ['/x/"q"'] })).toEqual([]);

    const scratch = join(root, 'scratch', 's1.programs');
    expect(outsideFolders([script, '/usr/bin/node'], [bin])).toEqual(['/usr/bin/node']);
    const mounts = await linkPrograms(host, scratch, [script, join(bin, 'via-link.mjs')]);
    expect(mounts).toEqual([{ source: join(scratch, '0'), target: script }]);
    expect(statSync(join(scratch, '0')).ino).toBe(statSync(script).ino);
    expect(lstatSync(scratch).mode & 0o777).toBe(0o700);
    expect(await linkPrograms(host, join(root, 'scratch', 's2.programs'), [bin, join(bin, 'missing.mjs')])).toEqual([]);
  });

  it('a program rebuilt by a rename is linked anew; one removed keeps its last link (the container can still start); the program is never written', async () => {
    const script = join(root, 'rebuilt.mjs');
    writeFileSync(script, 'v1\n');
    const scratch = join(root, 'scratch', 's3.programs');
    await linkPrograms(host, scratch, [script]);
    writeFileSync(`${script}.tmp`, 'v2\n');
    renameSync(`${script}.tmp`, script);
    expect(await linkPrograms(host, scratch, [script])).toEqual([{ source: join(scratch, '0'), target: script }]);
    expect(readFileSync(join(scratch, '0'), 'utf8')).toBe('v2\n');
    rmSync(script);
    expect(await linkPrograms(host, scratch, [script])).toEqual([{ source: join(scratch, '0'), target: script }]);
    expect(readFileSync(join(scratch, '0'), 'utf8')).toBe('v2\n');
  });
});
