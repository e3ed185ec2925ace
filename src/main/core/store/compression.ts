import { brotliCompressSync, brotliDecompressSync, constants, crc32, deflateSync, inflateSync } from 'node:zlib';

/**
 * Compressed values in the store: the message log's blocks (a run of a session's messages, see
 * log-packing.ts) and long history entry texts. A compressed value is a BLOB whose first byte names its
 * format, so that a new format can be added without rewriting what is stored; plain values stay TEXT.
 *
 * Format 1: zlib (deflate with its Adler-32 check, so a damaged value is an error rather than garbage)
 * primed with DICTIONARY_V1, which gives short values the JSON-RPC and ACP vocabulary they would otherwise
 * spell out in full. Neither the dictionary nor the format may ever change: stored values depend on them.
 *
 * Format 2: the CRC-32 of the text's UTF-8 bytes (4 bytes, big-endian; brotli has no check of its own), then brotli at
 * quality 1 with no dictionary: for values of tens of KB (a large import's log blocks, written in its parsing threads)
 * it compresses a little better than format 1 at level 1, in two thirds of the time or less.
 */
const FORMAT_V1 = 1;
const FORMAT_V2 = 2;

const DICTIONARY_V1 = Buffer.from(
  [
    `"kind":"read","kind":"edit","kind":"execute","kind":"search","kind":"fetch","kind":"think","kind":"other"`,
    `"type":"resource_link","type":"image","mimeType":"text/plain","uri":"file://`,
    `"stopReason":"end_turn","stopReason":"cancelled","stopReason":"max_tokens"`,
    `"sessionUpdate":"plan","entries":[{"content":"',"priority":"medium","status":"pending"},{"content":"`,
    `"sessionUpdate":"available_commands_update","availableCommands":[{"name":"',"description":"`,
    `"sessionUpdate":"usage_update","used":',"size":`,
    `"sessionUpdate":"current_mode_update","currentModeId":"`,
    `"sessionUpdate":"session_info_update","title":"`,
    `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/',"mcpServers":[]}}`,
    `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}}}`,
    `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"',"prompt":[{"type":"text","text":"`,
    `{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"',"path":"/home/`,
    `{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{"sessionId":"',"content":"`,
    `{"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{"sessionId":"',"toolCall":{"toolCallId":"`,
    `"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`,
    `"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`,
    `{"jsonrpc":"2.0","id":6,"method":"terminal/create","params":{"sessionId":"',"command":"',"outputByteLimit":`,
    `{"jsonrpc":"2.0","id":7,"method":"terminal/wait_for_exit","params":{"sessionId":"',"terminalId":"term-`,
    `{"jsonrpc":"2.0","id":8,"result":{"exitCode":0,"signal":null}}`,
    `{"jsonrpc":"2.0","id":9,"method":"terminal/output","params":{"sessionId":"`,
    `{"jsonrpc":"2.0","id":9,"result":{"output":"',"truncated":false,"exitStatus":{"exitCode":0}}}`,
    `{"jsonrpc":"2.0","id":10,"method":"terminal/release","params":{"sessionId":"`,
    `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
    `"content":[{"type":"diff","path":"/home/',"oldText":"',"newText":"`,
    `"content":[{"type":"content","content":{"type":"text","text":"`,
    `"content":[{"type":"terminal","terminalId":"term-`,
    `"locations":[{"path":"/home/',"line":',"rawInput":{"command":"',"rawOutput":{"`,
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"',"update":{"sessionUpdate":"tool_call","toolCallId":"',"title":"',"status":"pending"`,
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"',"update":{"sessionUpdate":"tool_call_update","toolCallId":"',"status":"in_progress"',"status":"completed"}}}`,
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"',"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"`,
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"',"update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"`,
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"',"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`,
  ].join(''),
  'utf8',
);

/** A compressed value that cannot be read back (a damaged file, or a format this version does not know). */
export class StoreDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreDataError';
  }
}

/** How a value is compressed: format 1 at a zlib level, or 'fast' (format 2). */
export type Compression = number | 'fast';

/** `text` (or its UTF-8 bytes) compressed: format 1 at `level`, or format 2 ('fast'). */
export function compress(text: string | Uint8Array, level: Compression = 6): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (level === 'fast') {
    const z = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const out = Buffer.allocUnsafe(z.length + 5);
    out[0] = FORMAT_V2;
    out.writeUInt32BE(crc32(bytes), 1);
    z.copy(out, 5);
    return out;
  }
  const z = deflateSync(bytes, { level, dictionary: DICTIONARY_V1 });
  const out = Buffer.allocUnsafe(z.length + 1);
  out[0] = FORMAT_V1;
  z.copy(out, 1);
  return out;
}

/** The text of a compressed value; `what` names it in the error when it cannot be read. */
export function decompress(value: Uint8Array, what: string): string {
  const format = value[0];
  if (value.length < (format === FORMAT_V2 ? 6 : 2) || (format !== FORMAT_V1 && format !== FORMAT_V2)) {
    throw new StoreDataError(`${what} is damaged or in an unknown format (${value.length} bytes, format byte ${format ?? 'none'})`);
  }
  let bytes: Buffer;
  try {
    if (format === FORMAT_V1) return inflateSync(value.subarray(1), { dictionary: DICTIONARY_V1 }).toString('utf8');
    bytes = brotliDecompressSync(value.subarray(5));
  } catch (e) {
    throw new StoreDataError(`${what} is damaged and cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  if (crc32(bytes) !== Buffer.from(value.buffer, value.byteOffset, value.byteLength).readUInt32BE(1)) throw new StoreDataError(`${what} is damaged and cannot be read (its check does not match)`);
  return bytes.toString('utf8');
}

/** A stored text column: plain TEXT, or a compressed BLOB. */
export function storedText(value: string | Uint8Array | null, what: string): string | null {
  return value === null || typeof value === 'string' ? value : decompress(value, what);
}
