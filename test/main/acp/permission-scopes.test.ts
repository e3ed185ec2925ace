import type { PermissionOption } from '@agentclientprotocol/sdk';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { optionForDecision, PermissionRules, ruleForOption } from '../../../src/main/core/acp/session/permission-rules';
import { requestSubject, scopeForAnswer, type ToolCallFacts } from '../../../src/main/core/acp/session/rule-scope';
import { migrations } from '../../../src/main/core/store/migrations';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { describeScope, scopeProblem, type RuleScope } from '../../../src/shared/permission-scope';
import { tempDir } from '../../support/app-server';

/**
 * What an "always" answer stores, and which later requests it answers, for the option labels and kinds the
 * real agents send. The requests and options are those of the recorded transcripts in
 * ../shared/agents/transcripts (claude-tools, reg-claude-code-acp-tools, gemini-tools, reg-gemini-npx,
 * qwen-tools, reg-qwen-code-npx), with the labels of the agents' sources for what the transcripts do not
 * show: Qwen Code 0.24's exec options ("Always Allow in project: <Bash rule>", formatExecPermissionScopeLabel)
 * and Claude Code's "Yes, and allow access to <dir>/ and <prefix> commands" / "Yes, and don't ask again for
 * <prefix> commands in <dir>" (issue 24 quotes the first).
 */

const PROJ = '/srv/probe/ws';
const OTHER = '/srv/probe/other';

const CLAUDE_AGENT_EDIT: PermissionOption[] = [
  { optionId: 'allow-once', name: 'Yes', kind: 'allow_once' },
  { optionId: 'allow-with-updates', name: 'Yes, allow all edits during this session', kind: 'allow_always' },
  { optionId: 'reject', name: 'No', kind: 'reject_once' },
];
const claudeAgentBash = (label: string): PermissionOption[] => [
  { optionId: 'allow-once', name: 'Yes', kind: 'allow_once' },
  { optionId: 'allow-always', name: label, kind: 'allow_always' },
  { optionId: 'reject', name: 'No', kind: 'reject_once' },
];
const CLAUDE_CODE: PermissionOption[] = [
  { kind: 'allow_always', name: 'Always Allow', optionId: 'allow_always' },
  { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
  { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
];
const GEMINI: PermissionOption[] = [
  { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];
const QWEN_EDIT: PermissionOption[] = [
  { optionId: 'proceed_always', name: 'Allow All Edits', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];
const qwenExec = (label: string): PermissionOption[] => [
  { optionId: 'proceed_always_project', name: `Always Allow in project: ${label}`, kind: 'allow_always' },
  { optionId: 'proceed_always_user', name: `Always Allow for user: ${label}`, kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];

const bash = (command: string, kind: string | null = 'execute'): ToolCallFacts => ({
  kind: kind ?? 'other',
  title: `\`${command}\``,
  rawInput: { command, description: 'Run a shell command for the probe', timeout: 120000 },
  locations: [],
});
/** Gemini sends the command as the title, with no raw input. */
const geminiShell = (command: string): ToolCallFacts => ({ kind: 'execute', title: command, rawInput: null, locations: [] });
const write = (path: string, kind: string | null = 'edit'): ToolCallFacts => ({
  kind: kind ?? 'other',
  title: `Write ${path.split('/').pop()}`,
  rawInput: { file_path: path, content: 'x' },
  locations: [{ path }],
});

interface Later {
  what: string;
  facts: ToolCallFacts;
  folder?: string;
  agentId?: string;
  sameSession?: boolean;
  /** The option id the rule answers with; null: the user is asked. */
  answer: string | null;
}

interface Case {
  agent: string;
  label: string;
  request: ToolCallFacts;
  options: PermissionOption[];
  chosen: string;
  stored: Omit<RuleScope, 'sessionId'> & { session: boolean };
  shown: string;
  later: Later[];
}

const CASES: Case[] = [
  {
    agent: 'claude-agent',
    label: 'Claude Agent, "allow access to ws/ and echo commands"',
    request: bash('echo always > always2.txt'),
    options: claudeAgentBash('Yes, and allow access to ws/ and echo commands'),
    chosen: 'allow-always',
    stored: { subject: 'command', match: 'prefix', pattern: 'echo', folder: PROJ, session: false },
    shown: 'run `echo *` in ws',
    later: [
      { what: 'same prefix', facts: bash('echo again'), answer: 'allow-once' },
      { what: 'same prefix, extra spaces', facts: bash('echo   no'), answer: 'allow-once' },
      { what: 'another command', facts: bash('rm -rf x'), answer: null },
      { what: 'a word that starts alike', facts: bash('echoevil x'), answer: null },
      { what: 'the prefix chained to another command', facts: bash('echo hi && rm -rf x'), answer: null },
      { what: 'a command substitution', facts: bash('echo $(rm -rf x)'), answer: null },
      { what: 'an output redirection (writes a file it does not name)', facts: bash('echo key >> ~/.ssh/authorized_keys'), answer: null },
      { what: 'an input redirection', facts: bash('echo < /etc/shadow'), answer: null },
      { what: 'a pipe', facts: bash('echo y | sudo rm -rf /'), answer: null },
      { what: 'a newline then another command', facts: bash('echo hi\nrm -rf x'), answer: null },
      { what: 'hidden direction controls', facts: bash('echo \u202Eabc'), answer: null },
      { what: 'a subfolder session', facts: bash('echo sub'), folder: `${PROJ}/sub`, answer: 'allow-once' },
      { what: 'another folder', facts: bash('echo again'), folder: OTHER, answer: null },
      { what: 'a folder that starts alike', facts: bash('echo again'), folder: `${PROJ}-evil`, answer: null },
      { what: 'another agent', facts: bash('echo again'), agentId: 'qwen', answer: null },
      { what: 'an edit (another kind)', facts: write(`${PROJ}/a.txt`), answer: null },
    ],
  },
  {
    agent: 'claude-agent',
    label: 'Claude Agent, "don\'t ask again for git diff:* commands in ws"',
    request: bash('git diff --stat'),
    options: claudeAgentBash("Yes, and don't ask again for git diff:* commands in ws"),
    chosen: 'allow-always',
    stored: { subject: 'command', match: 'prefix', pattern: 'git diff', folder: PROJ, session: false },
    shown: 'run `git diff *` in ws',
    later: [
      { what: 'same prefix', facts: bash('git diff HEAD~1'), answer: 'allow-once' },
      { what: 'same first word only', facts: bash('git push --force'), answer: null },
    ],
  },
  {
    agent: 'claude-agent',
    label: 'Claude Agent, a label naming a prefix the command does not have',
    request: bash('rm -rf build'),
    options: claudeAgentBash("Yes, and don't ask again for ls commands in ws"),
    chosen: 'allow-always',
    stored: { subject: 'command', match: 'exact', pattern: 'rm -rf build', folder: PROJ, session: false },
    shown: 'run `rm -rf build` in ws',
    later: [
      { what: 'the same command', facts: bash('rm -rf build'), answer: 'allow-once' },
      { what: 'the named prefix', facts: bash('ls -la'), answer: null },
      { what: 'same first word', facts: bash('rm -rf /'), answer: null },
    ],
  },
  {
    agent: 'claude-agent',
    label: 'Claude Agent (claude-tools), "Yes, allow all edits during this session"',
    request: write(`${PROJ}/claude-hello.txt`),
    options: CLAUDE_AGENT_EDIT,
    chosen: 'allow-with-updates',
    stored: { subject: 'path', match: 'glob', pattern: `${PROJ}/**`, folder: PROJ, session: true },
    shown: 'edit `**` in ws (this session only)',
    later: [
      { what: 'another file of the project', facts: write(`${PROJ}/src/deep/b.ts`), sameSession: true, answer: 'allow-once' },
      { what: 'a file outside the project', facts: write('/etc/passwd'), sameSession: true, answer: null },
      { what: 'a path climbing out with ..', facts: write(`${PROJ}/../other/x`), sameSession: true, answer: null },
      { what: 'another session', facts: write(`${PROJ}/b.txt`), sameSession: false, answer: null },
      { what: 'a command', facts: bash('echo x'), sameSession: true, answer: null },
    ],
  },
  {
    agent: 'claude-code',
    label: 'Claude Code 0.16 (reg-claude-code-acp-tools), "Always Allow" on a Write (no kind)',
    request: { kind: 'other', title: `Write ${PROJ}/reg-claude.txt`, rawInput: { file_path: `${PROJ}/reg-claude.txt`, content: 'x' }, locations: null },
    options: CLAUDE_CODE,
    chosen: 'allow_always',
    stored: { subject: 'path', match: 'exact', pattern: `${PROJ}/reg-claude.txt`, folder: PROJ, session: false },
    shown: 'use `reg-claude.txt` in ws',
    later: [
      { what: 'the same file', facts: { kind: 'other', title: 'Write again', rawInput: { file_path: `${PROJ}/reg-claude.txt` }, locations: null }, answer: 'allow' },
      { what: 'another file', facts: { kind: 'other', title: 'Write', rawInput: { file_path: `${PROJ}/other.txt` }, locations: null }, answer: null },
    ],
  },
  {
    agent: 'claude-code',
    label: 'Claude Code 0.16 (reg-claude-code-acp-tools), "Always Allow" on a shell command (no kind)',
    request: bash(`cat ${PROJ}/reg-claude.txt && echo SHELL-OK`, null),
    options: CLAUDE_CODE,
    chosen: 'allow_always',
    stored: { subject: 'command', match: 'exact', pattern: `cat ${PROJ}/reg-claude.txt && echo SHELL-OK`, folder: PROJ, session: false },
    shown: `run \`cat ${PROJ}/reg-claude.txt && echo SHELL-OK\` in ws`,
    later: [
      { what: 'the same command', facts: bash(`cat ${PROJ}/reg-claude.txt && echo SHELL-OK`, null), answer: 'allow' },
      { what: 'the same first word', facts: bash(`cat ${PROJ}/secret`, null), answer: null },
    ],
  },
  {
    agent: 'gemini',
    label: 'Gemini (gemini-tools), "Allow for this session" on a shell command',
    request: geminiShell(`cat ${PROJ}/gemini-hello.txt && echo SHELL-OK`),
    options: GEMINI,
    chosen: 'proceed_always',
    stored: { subject: 'command', match: 'exact', pattern: `cat ${PROJ}/gemini-hello.txt && echo SHELL-OK`, folder: PROJ, session: true },
    shown: `run \`cat ${PROJ}/gemini-hello.txt && echo SHELL-OK\` in ws (this session only)`,
    later: [
      { what: 'the same command, same session', facts: geminiShell(`cat ${PROJ}/gemini-hello.txt && echo SHELL-OK`), sameSession: true, answer: 'proceed_once' },
      { what: 'the same command, another session', facts: geminiShell(`cat ${PROJ}/gemini-hello.txt && echo SHELL-OK`), sameSession: false, answer: null },
      { what: 'another command', facts: geminiShell('cat /etc/shadow'), sameSession: true, answer: null },
    ],
  },
  {
    agent: 'gemini',
    label: 'Gemini (gemini-tools), "Allow for this session" on a write',
    request: { kind: 'edit', title: 'Writing to gemini-hello.txt', rawInput: null, locations: [{ path: `${PROJ}/gemini-hello.txt` }] },
    options: GEMINI,
    chosen: 'proceed_always',
    stored: { subject: 'path', match: 'exact', pattern: `${PROJ}/gemini-hello.txt`, folder: PROJ, session: true },
    shown: 'edit `gemini-hello.txt` in ws (this session only)',
    later: [
      { what: 'the same file', facts: { kind: 'edit', title: 'Writing to gemini-hello.txt', rawInput: null, locations: [{ path: `${PROJ}/gemini-hello.txt` }] }, sameSession: true, answer: 'proceed_once' },
      { what: 'another file', facts: { kind: 'edit', title: 'Writing to b.txt', rawInput: null, locations: [{ path: `${PROJ}/b.txt` }] }, sameSession: true, answer: null },
    ],
  },
  {
    agent: 'qwen',
    label: 'Qwen (qwen-tools), "Allow All Edits"',
    request: write(`${PROJ}/qwen-hello.txt`),
    options: QWEN_EDIT,
    chosen: 'proceed_always',
    stored: { subject: 'path', match: 'glob', pattern: `${PROJ}/**`, folder: PROJ, session: false },
    shown: 'edit `**` in ws',
    later: [
      { what: 'another file of the project', facts: write(`${PROJ}/b.txt`), answer: 'proceed_once' },
      { what: 'a file of another project', facts: write(`${OTHER}/b.txt`), folder: OTHER, answer: null },
      { what: 'a file outside, from this project', facts: write(`${OTHER}/b.txt`), answer: null },
    ],
  },
  {
    agent: 'qwen',
    label: 'Qwen 0.24, "Always Allow in project: echo *"',
    request: bash('echo always > always2.txt'),
    options: qwenExec('echo *'),
    chosen: 'proceed_always_project',
    stored: { subject: 'command', match: 'prefix', pattern: 'echo', folder: PROJ, session: false },
    shown: 'run `echo *` in ws',
    later: [
      { what: 'same prefix', facts: bash('echo no'), answer: 'proceed_once' },
      { what: 'another command', facts: bash('rm -rf x'), answer: null },
      { what: 'another folder', facts: bash('echo no'), folder: OTHER, answer: null },
      { what: 'another agent', facts: bash('echo no'), agentId: 'claude-agent', answer: null },
    ],
  },
  {
    agent: 'qwen',
    label: 'Qwen 0.24, "Always Allow for user: git status, git diff" (two rules named: exact)',
    request: bash('git status'),
    options: qwenExec('git status, git diff'),
    chosen: 'proceed_always_user',
    stored: { subject: 'command', match: 'prefix', pattern: 'git status', folder: PROJ, session: false },
    shown: 'run `git status *` in ws',
    later: [
      { what: 'same prefix', facts: bash('git status -s'), answer: 'proceed_once' },
      { what: 'the other named prefix (not stored)', facts: bash('git diff'), answer: null },
      { what: 'the user-level label still stays in this project', facts: bash('git status'), folder: OTHER, answer: null },
    ],
  },
  {
    agent: 'qwen',
    label: 'Qwen 0.24, "Always Allow in project: *" (a pattern with no command)',
    request: bash('make test'),
    options: qwenExec('*'),
    chosen: 'proceed_always_project',
    stored: { subject: 'command', match: 'exact', pattern: 'make test', folder: PROJ, session: false },
    shown: 'run `make test` in ws',
    later: [
      { what: 'another command', facts: bash('make install'), answer: null },
      { what: 'the same command', facts: bash('make test'), answer: 'proceed_once' },
    ],
  },
];

let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

describe('an "always" answer stores a rule no wider than its label, and answers with "once"', () => {
  for (const c of CASES) {
    it(c.label, () => {
      db = openDatabase(join(tempDir('sb-rules-'), 'switchboard.db'));
      const rules = new PermissionRules(db);
      const option = c.options.find((o) => o.optionId === c.chosen)!;
      const decision = ruleForOption(option)!;
      expect(decision).toBe('allow');
      const scope = scopeForAnswer({ option, subject: requestSubject(c.request, PROJ), title: c.request.title ?? '', cwd: PROJ, sessionId: 's1' });
      const { session, ...rest } = c.stored;
      expect(scope).toEqual({ ...rest, sessionId: session ? 's1' : null });
      expect(scopeProblem(scope)).toBeNull();
      expect(describeScope(c.request.kind, scope)).toBe(c.shown);
      rules.set({ agentId: c.agent, toolKind: c.request.kind, scope, decision, label: option.name });

      for (const l of c.later) {
        const folder = l.folder ?? PROJ;
        const rule = rules.find({
          agentId: l.agentId ?? c.agent,
          toolKind: l.facts.kind,
          sessionId: l.sameSession === false ? 's2' : 's1',
          folder,
          subject: requestSubject(l.facts, folder),
        });
        const answer = rule ? (optionForDecision(c.options, rule.decision)?.optionId ?? null) : null;
        expect({ what: l.what, answer }).toEqual({ what: l.what, answer: l.answer });
      }
    });
  }
});

describe('answering and storing', () => {
  it('never answers with the agent\'s "always" option: with only "always" offered, the user is asked', () => {
    const onlyAlways: PermissionOption[] = [
      { optionId: 'aa', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'ra', name: 'Always reject', kind: 'reject_always' },
    ];
    expect(optionForDecision(onlyAlways, 'allow')).toBeUndefined();
    expect(optionForDecision(onlyAlways, 'reject')).toBeUndefined();
    expect(optionForDecision([...onlyAlways, { optionId: 'ro', name: 'No', kind: 'reject_once' }], 'reject')?.optionId).toBe('ro');
  });

  it('compares a path through a link as the file it leads to', () => {
    const root = realpathSync(tempDir('sb-rules-links-'));
    const proj = join(root, 'proj');
    mkdirSync(join(proj, 'src'), { recursive: true });
    mkdirSync(join(root, 'outside'));
    symlinkSync(join(root, 'outside'), join(proj, 'escape'));
    // The session's folder itself reached through a link: paths inside it still count as inside.
    symlinkSync(proj, join(root, 'proj-link'));
    db = openDatabase(join(root, 'switchboard.db'));
    const rules = new PermissionRules(db);
    const option = QWEN_EDIT[0]!;
    for (const cwd of [proj, join(root, 'proj-link')]) {
      const scope = scopeForAnswer({ option, subject: requestSubject(write(`${cwd}/a.txt`), cwd), title: '', cwd, sessionId: 's' });
      expect(scope).toMatchObject({ match: 'glob', pattern: `${cwd}/**` });
      rules.set({ agentId: 'qwen', toolKind: 'edit', scope, decision: 'allow', label: option.name });
      const answers = (path: string) => rules.find({ agentId: 'qwen', toolKind: 'edit', sessionId: 's', folder: cwd, subject: requestSubject(write(path), cwd) }) !== undefined;
      expect(answers(`${cwd}/src/new.ts`)).toBe(true);
      expect(answers(`${cwd}/escape/authorized_keys`)).toBe(false);
      expect(answers(`${cwd}/escape/new-dir/x`)).toBe(false);
    }
  });

  it('refuses scopes wider than a rule may be', () => {
    db = openDatabase(join(tempDir('sb-rules-'), 'switchboard.db'));
    const rules = new PermissionRules(db);
    const base: RuleScope = { subject: 'command', match: 'prefix', pattern: 'echo', folder: PROJ, sessionId: null };
    const wide: Array<[string, RuleScope]> = [
      ['every command', { ...base, pattern: '*' }],
      ['a wildcard first word', { ...base, pattern: 'ec* x' }],
      ['a compound prefix', { ...base, pattern: 'echo a; rm' }],
      ['the whole disk', { ...base, folder: '/' }],
      ['a relative folder', { ...base, folder: 'proj' }],
      ['a folder with ..', { ...base, folder: `${PROJ}/../..` }],
      ['a glob outside the folder', { subject: 'path', match: 'glob', pattern: '/etc/**', folder: PROJ, sessionId: null }],
      ['a glob of the folder itself', { subject: 'path', match: 'glob', pattern: PROJ, folder: PROJ, sessionId: null }],
      ['a title glob', { subject: 'title', match: 'glob', pattern: 'Run *', folder: PROJ, sessionId: null }],
      ['direction controls', { ...base, pattern: 'echo \u202E' }],
    ];
    for (const [what, scope] of wide) {
      expect({ what, problem: scopeProblem(scope) !== null }).toEqual({ what, problem: true });
      expect(() => rules.set({ agentId: 'a', toolKind: 'execute', scope, decision: 'allow', label: null })).toThrow(/not stored/);
    }
    expect(rules.list()).toEqual([]);
  });

  it('keeps the unscoped rules of before listed, answering nothing until they are given a scope', () => {
    const dir = tempDir('sb-rules-');
    const old = openDatabase(join(dir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 14) });
    old.prepare("INSERT INTO permission_rules (agent_id, tool_kind, decision, created_at) VALUES ('claude', 'execute', 'allow', 1)").run();
    old.close();
    db = openDatabase(join(dir, 'switchboard.db'));
    const rules = new PermissionRules(db);
    const [legacy] = rules.list();
    expect(legacy).toMatchObject({ agentId: 'claude', toolKind: 'execute', decision: 'allow', scope: null });
    const q = { agentId: 'claude', toolKind: 'execute', sessionId: 's', folder: PROJ, subject: { subject: 'command' as const, command: 'rm -rf x' } };
    expect(rules.find(q)).toBeUndefined();
    // Narrowed on the permissions page: it answers what its scope covers, and only that.
    rules.set({ agentId: 'claude', toolKind: 'execute', scope: { subject: 'command', match: 'prefix', pattern: 'rm', folder: PROJ, sessionId: null }, decision: 'allow', label: null }, legacy!.id);
    expect(rules.find(q)?.id).toBe(legacy!.id);
    expect(rules.find({ ...q, folder: OTHER })).toBeUndefined();
  });
});
