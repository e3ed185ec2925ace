import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentRuleFiles, distinctRuleFiles, readAgentRuleFile, type AgentFacts } from '../../../src/main/core/acp/session/agent-rule-files';
import { tempDir } from '../../support/app-server';

const put = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

describe("the rule files agents read themselves", () => {
  it('lists those that exist for the folder and the agent’s home, by agent family, with their entries', () => {
    const root = realpathSync(tempDir('sb-agent-rules-'));
    const proj = join(root, 'proj');
    const home = join(root, 'home');
    put(join(proj, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { allow: ['Bash(echo no *)', 'Read'], deny: ['Bash(rm *)'] } }));
    put(join(home, '.claude', 'settings.json'), '{ not json');
    put(join(proj, '.qwen', 'settings.json'), JSON.stringify({ tools: { allowed: ['run_shell_command(git status)'] } }));
    put(join(proj, '.gemini', 'settings.json'), JSON.stringify({ tools: { allowed: ['ShellTool(ls)'] } }));
    const agent = (name: string, command = 'node', args: string[] = []): AgentFacts => ({ id: name.toLowerCase(), name, command, args, registryId: null, home });

    expect(agentRuleFiles(agent('Claude Agent', 'node', ['node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js']), proj)).toEqual([
      { folder: proj, agentId: 'claude agent', agentName: 'Claude Agent', path: join(proj, '.claude', 'settings.local.json'), level: 'project', entries: 3 },
      { folder: proj, agentId: 'claude agent', agentName: 'Claude Agent', path: join(home, '.claude', 'settings.json'), level: 'user', entries: null },
    ]);
    // Known by its command when its name says nothing.
    expect(agentRuleFiles(agent('My agent', 'npx', ['@qwen-code/qwen-code', '--acp']), proj).map((f) => [f.path, f.entries])).toEqual([[join(proj, '.qwen', 'settings.json'), 1]]);
    expect(agentRuleFiles(agent('Gemini'), proj).map((f) => f.level)).toEqual(['project']);
    expect(agentRuleFiles(agent('Scenario'), proj)).toEqual([]);
    // Another folder: only the home's file.
    expect(agentRuleFiles(agent('Claude'), join(root, 'elsewhere')).map((f) => f.level)).toEqual(['user']);

    // Only a listed file is read.
    const listed = agentRuleFiles(agent('Claude'), proj);
    expect(readAgentRuleFile(listed, join(proj, '.claude', 'settings.local.json'))).toContain('Bash(echo no *)');
    expect(readAgentRuleFile(listed, join(proj, '.qwen', 'settings.json'))).toBeNull();
  });
});

describe('the rule files of several sessions', () => {
  it('lists each file once: the home file every session shares, a folder reached through a link', () => {
    const root = realpathSync(tempDir('sb-agent-rules-'));
    const home = join(root, 'home');
    put(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Read'] } }));
    put(join(root, 'a', '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Edit'] } }));
    mkdirSync(join(root, 'b'));
    symlinkSync(join(root, 'a'), join(root, 'a-link'));
    const claude: AgentFacts = { id: 'c', name: 'Claude', command: 'claude-agent-acp', args: [], registryId: null, home };
    const all = ['a', 'b', 'a-link'].flatMap((f) => agentRuleFiles(claude, join(root, f)));
    expect(all).toHaveLength(5);
    expect(distinctRuleFiles(all).map((f) => f.path)).toEqual([join(root, 'a', '.claude', 'settings.json'), join(home, '.claude', 'settings.json')]);
  });
});
