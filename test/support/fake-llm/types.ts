// Wire-neutral view of an LLM request and of the reply the fake server should give. Each wire format
// (Anthropic Messages, Gemini, OpenAI Chat Completions) parses its body into an `LlmRequest` and renders an
// `LlmReply` back in its own framing. No test-framework imports here: reused by UI tests later.

export type WireFormat = 'anthropic' | 'gemini' | 'openai';

/** A JSON schema as found in a request (tool arguments, response schema). Untyped on purpose: agents vary. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  /** Argument schema: Anthropic `input_schema`, Gemini `parametersJsonSchema`/`parameters`, OpenAI `parameters`. */
  schema: JsonSchema;
}

export type ConvPart =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id?: string; name: string; args: unknown }
  | { type: 'tool_result'; id?: string; name?: string; output: string; isError?: boolean };

export interface ConvMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  parts: ConvPart[];
}

export interface LlmRequest {
  format: WireFormat;
  model: string;
  stream: boolean;
  tools: ToolSpec[];
  messages: ConvMessage[];
  system: string;
  /** JSON schema the reply must follow (Gemini `responseJsonSchema`/`responseSchema`, OpenAI json_schema). */
  responseSchema?: JsonSchema;
  /** Text of the last user message that is a prompt (has text and no tool results); '' if none. */
  promptText: string;
  /** Tool results (in order) that came after that prompt: the progress of the current turn. */
  toolResults: Array<Extract<ConvPart, { type: 'tool_result' }>>;
}

export type LlmReply =
  /** Plain text. `chunkDelayMs` > 0 streams it slowly in `chunkSize`-character pieces (for cancel tests). */
  | { type: 'text'; text: string; chunkDelayMs?: number; chunkSize?: number }
  /** One tool call, optionally preceded by some text. */
  | { type: 'tool_call'; name: string; args: Record<string, unknown>; text?: string }
  /** A JSON document (structured-output side calls such as Gemini's router classifier). */
  | { type: 'json'; value: unknown }
  /** An HTTP error in the wire format's error shape. */
  | { type: 'error'; status: number; message: string };

/** Ends a turn (text) or asks the agent to run a tool; resolved against the request's tool list. */
export type ScriptStep =
  | { kind: 'write'; path: string; content: string; say?: string }
  | { kind: 'shell'; command: string; description?: string; say?: string }
  /** Any tool: the first of `names` present in the request; `args` literal or built from the tool's schema. */
  | {
      kind: 'tool';
      names: string[];
      args: Record<string, unknown> | ((tool: ToolSpec) => Record<string, unknown>);
      say?: string;
    }
  | { kind: 'text'; text: string }
  /** Text streamed in `chunks` pieces, `chunkDelayMs` apart; stops when the agent hangs up (cancel). */
  | { kind: 'slow'; text?: string; chunks?: number; chunkDelayMs?: number };

/** A rule can answer any request; return undefined to fall through to scripts and defaults. */
export type LlmRule = (req: LlmRequest) => LlmReply | undefined;

export type RequestKind = 'turn' | 'side' | 'count_tokens' | 'other';

export interface LoggedRequest {
  seq: number;
  /** ms since the server started */
  at: number;
  method: string;
  path: string;
  format: WireFormat | 'unknown';
  kind: RequestKind;
  model?: string;
  stream?: boolean;
  toolNames: string[];
  promptText?: string;
  /** Number of tool results already in this turn (the script step index for a turn request). */
  step?: number;
  /** Short description of the reply (e.g. `tool_call mcp__acp__Write`, `text "…"`, `404`). */
  reply: string;
  status: number;
  /** The agent closed the connection before the reply ended (e.g. the turn was cancelled). */
  aborted: boolean;
  /** Set once the response ended (normally or by abort). */
  done: boolean;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Anything the fake found wrong with the request (unknown tool, unparsable body…). */
  problems: string[];
}
