import { describe, expect, it } from 'vitest';
import { mcpToolName, readableToolTitle } from '../../src/shared/mcp-tool-name';

describe('MCP tool names read as "Server · tool" (shared/mcp-tool-name)', () => {
  it("names Switchboard's own delegation tools and any server's tool, keeping the raw name", () => {
    expect(mcpToolName('mcp__switchboard-delegation__start_session')).toEqual({
      title: 'Switchboard · start session',
      server: 'Switchboard',
      tool: 'start session',
      raw: 'mcp__switchboard-delegation__start_session',
    });
    expect(readableToolTitle('mcp__github__create_pull_request')).toBe('Github · create pull request');
    expect(readableToolTitle('mcp__my_server__getIssueComments')).toBe('My server · get issue comments');
    expect(readableToolTitle('mcp__claude-in-chrome__tabs.create')).toBe('Claude in chrome · tabs create');
  });

  it('leaves anything else as it is: titles, half shapes, markup, overlong names', () => {
    for (const title of [
      'Read file',
      'mcp__server',
      'mcp____tool',
      'mcp__a__',
      'xmcp__a__b',
      'mcp__<img src=x onerror=alert(1)>__x',
      'mcp__a__b c',
      'mcp__a__b\u202e',
      `mcp__${'s'.repeat(400)}__t`,
    ]) {
      expect(mcpToolName(title), title).toBeNull();
      expect(readableToolTitle(title)).toBe(title);
    }
  });

  it('bounds each part', () => {
    const named = mcpToolName(`mcp__srv__${'a'.repeat(200)}`)!;
    expect(named.tool.length).toBe(60);
    expect(named.tool.endsWith('…')).toBe(true);
  });
});
