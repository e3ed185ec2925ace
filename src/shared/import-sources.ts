/**
 * The agents whose own stores History → Import reads, and their names. Plain data (no zod): the SSH helper,
 * which lists and reads the stores on a host, is bundled with it and stays small.
 */
export const importSourceIds = ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode'] as const;
export type ImportSourceId = (typeof importSourceIds)[number];

export const importSourceNames: Record<ImportSourceId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  'qwen-code': 'Qwen Code',
  opencode: 'OpenCode',
};
