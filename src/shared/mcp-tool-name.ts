/**
 * Tool names of the shape `mcp__<server>__<tool>` (Claude's name for an MCP server's tool, which other agents copy)
 * read as "Server · tool name", the server and the tool named. The name comes from the agent: only names of
 * that exact shape (letters, digits, `_`, `-`, `.`; bounded) are read, anything else is left as it is.
 */

/** Longest raw name read; longer ones are shown as they are (VisibleText bounds them). */
const MAX_RAW = 300;
/** Longest server or tool part shown. */
const MAX_PART = 60;
const SHAPE = /^mcp__([A-Za-z0-9][A-Za-z0-9_.-]*?)__([A-Za-z0-9][A-Za-z0-9_.-]*)$/;

/** Switchboard's own servers, by the names their agents see. */
const KNOWN_SERVERS: Record<string, string> = {
  'switchboard-delegation': 'Switchboard',
  switchboard_delegation: 'Switchboard',
};

function words(part: string): string {
  const s = part
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return s.length > MAX_PART ? `${s.slice(0, MAX_PART - 1)}…` : s;
}

export interface McpToolName {
  /** "Switchboard · start session" */
  title: string;
  server: string;
  tool: string;
  /** The name as the agent sent it. */
  raw: string;
}

/** The readable form of an MCP tool name, or null when `name` is not of the `mcp__<server>__<tool>` shape. */
export function mcpToolName(name: string | null | undefined): McpToolName | null {
  if (typeof name !== 'string') return null;
  const raw = name.trim();
  if (raw.length > MAX_RAW) return null;
  const m = SHAPE.exec(raw);
  if (!m) return null;
  const serverWords = words(m[1]!);
  const server = KNOWN_SERVERS[m[1]!.toLowerCase()] ?? serverWords.charAt(0).toUpperCase() + serverWords.slice(1);
  const tool = words(m[2]!);
  if (!server || !tool) return null;
  return { title: `${server} · ${tool}`, server, tool, raw };
}

/** A tool call's title as shown: the readable form of an MCP tool name, else the title as it is. */
export function readableToolTitle(title: string): string {
  return mcpToolName(title)?.title ?? title;
}
