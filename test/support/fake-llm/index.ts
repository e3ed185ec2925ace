export { isKnownSideCall, startFakeLlm } from './server.js';
export type { FakeLlm, FakeLlmOptions, WaitOptions } from './server.js';
export {
  SHELL_TOOL_NAMES,
  WRITE_TOOL_NAMES,
  buildShellArgs,
  buildWriteArgs,
  findTool,
  replyFromScript,
  sampleFromSchema,
  stepsFromPrompt,
} from './script.js';
export type {
  ConvMessage,
  ConvPart,
  JsonSchema,
  LlmReply,
  LlmRequest,
  LlmRule,
  LoggedRequest,
  RequestKind,
  ScriptStep,
  ToolSpec,
  WireFormat,
} from './types.js';
