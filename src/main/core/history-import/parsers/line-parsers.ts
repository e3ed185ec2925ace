import type { ImportSourceId } from '../../../../shared/import-sources';
import { claudeCodeParser } from './claude-code';
import { codexParser } from './codex';
import { geminiCliParser } from './gemini-cli';
import { qwenCodeParser } from './qwen-code';
import type { LineParser } from './types';

/** The sources whose stores are files of JSON lines (every one but OpenCode's database). */
export type JsonlSourceId = Exclude<ImportSourceId, 'opencode'>;

/** The one registration of each JSON-lines source's parser: a source added without one does not compile. */
export const LINE_PARSERS: Record<JsonlSourceId, LineParser<unknown>> = {
  'claude-code': claudeCodeParser as LineParser<unknown>,
  codex: codexParser as LineParser<unknown>,
  'gemini-cli': geminiCliParser as LineParser<unknown>,
  'qwen-code': qwenCodeParser as LineParser<unknown>,
};
