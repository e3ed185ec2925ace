import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../../src/renderer/src/features/agents/command-line';

describe('splitting a pasted command line into program and arguments', () => {
  it.each([
    ['bash /path/to/agent.sh', ['bash', '/path/to/agent.sh']],
    ['  npx   -y  @scope/agent@1.2.3 --acp ', ['npx', '-y', '@scope/agent@1.2.3', '--acp']],
    [`"/opt/my agent/run" --name 'two words'`, ['/opt/my agent/run', '--name', 'two words']],
    [String.raw`/opt/my\ agent/run --x=a\"b`, ['/opt/my agent/run', '--x=a"b']],
    [String.raw`node "say \"hi\" \\ now" 'it''s'`, ['node', 'say "hi" \\ now', 'its']],
    [`python -c 'print("$HOME | x")'`, ['python', '-c', 'print("$HOME | x")']],
    [`a "" b`, ['a', '', 'b']],
  ])('%s', (line, words) => {
    expect(splitCommandLine(line)).toEqual({ ok: true, words });
  });

  it.each([
    [`bash 'unclosed`, 'single quote is not closed'],
    [`bash "unclosed`, 'double quote is not closed'],
    ['agent | tee log', 'without a shell'],
    ['agent > out.txt', 'without a shell'],
    ['agent $HOME', 'variables'],
    ['agent "$(id)"', 'variables'],
    ['agent \\', 'ends with a backslash'],
  ])('refuses %s', (line, why) => {
    const r = splitCommandLine(line);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });
});
