// The fake LLM on its own, over HTTP, in each wire format: what an agent would receive. Runs without any agent.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${llm.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** `data:` payloads of an SSE body (JSON-parsed unless `[DONE]`). */
async function sseData(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split(/\r?\n\r?\n/)
    .flatMap((frame) => frame.split(/\r?\n/).filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)))
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)));
}

const writeSchema = {
  type: 'object',
  properties: { file_path: { type: 'string' }, content: { type: 'string' } },
  required: ['file_path', 'content'],
};

describe('Anthropic Messages', () => {
  const tools = [
    { name: 'Write', description: 'built-in', input_schema: writeSchema },
    { name: 'mcp__acp__Write', description: 'through the client', input_schema: writeSchema },
    {
      name: 'mcp__acp__Bash',
      input_schema: {
        type: 'object',
        properties: { command: { type: 'string' }, timeout: { type: 'number' }, description: { type: 'string' } },
        required: ['command', 'timeout'],
      },
    },
  ];

  it('streams a tool call for the ACP-routed tool, then a final text carrying the tool result', async () => {
    llm.setScript([
      { kind: 'write', path: '/w/a.txt', content: 'A' },
      { kind: 'shell', command: 'echo hi' },
    ]);
    const first = await post('/v1/messages?beta=true', {
      model: 'claude-x',
      stream: true,
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      some_future_field: { anything: true },
    });
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const events = (await sseData(first)) as Array<Record<string, any>>;
    expect(events[0]?.['type']).toBe('message_start');
    const start = events.find((e) => e['type'] === 'content_block_start' && e['content_block']['type'] === 'tool_use');
    expect(start?.['content_block']['name']).toBe('mcp__acp__Write');
    const json = events
      .filter((e) => e['type'] === 'content_block_delta' && e['delta']['type'] === 'input_json_delta')
      .map((e) => e['delta']['partial_json'])
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/w/a.txt', content: 'A' });
    expect(events.find((e) => e['type'] === 'message_delta')?.['delta']['stop_reason']).toBe('tool_use');

    const toolUseId = start?.['content_block']['id'] as string;
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'mcp__acp__Write', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'written' }] },
    ];
    const second = (await sseData(
      await post('/v1/messages', { model: 'claude-x', stream: true, tools, messages: history }),
    )) as Array<Record<string, any>>;
    const bash = second.find((e) => e['type'] === 'content_block_start' && e['content_block']['type'] === 'tool_use');
    expect(bash?.['content_block']['name']).toBe('mcp__acp__Bash');
    const bashArgs = JSON.parse(
      second
        .filter((e) => e['type'] === 'content_block_delta' && e['delta']['type'] === 'input_json_delta')
        .map((e) => e['delta']['partial_json'])
        .join(''),
    ) as Record<string, unknown>;
    // A required timeout gets a usable value, not 0 (which times the command out at once).
    expect(bashArgs).toMatchObject({ command: 'echo hi', timeout: 120_000 });

    const third = (await sseData(
      await post('/v1/messages', {
        model: 'claude-x',
        stream: true,
        tools,
        messages: [
          ...history,
          { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'mcp__acp__Bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'hi' }] }] },
        ],
      }),
    )) as Array<Record<string, any>>;
    const text = third
      .filter((e) => e['type'] === 'content_block_delta' && e['delta']['type'] === 'text_delta')
      .map((e) => e['delta']['text'])
      .join('');
    expect(text).toBe('fake-llm: all 2 step(s) done. Last tool result: hi');
    expect(llm.turnRequests().map((r) => r.step)).toEqual([0, 1, 2]);
  });

  it('answers side calls without tools, non-streamed, and token counts', async () => {
    const res = await post('/v1/messages', { model: 'haiku', messages: [{ role: 'user', content: 'title?' }] });
    const msg = (await res.json()) as Record<string, any>;
    expect(msg['content']).toEqual([{ type: 'text', text: 'Fake title' }]);
    expect(msg['stop_reason']).toBe('end_turn');
    const count = (await (await post('/v1/messages/count_tokens?beta=true', { messages: [] })).json()) as Record<string, unknown>;
    expect(count['input_tokens']).toBeGreaterThan(0);
    expect(llm.requests().map((r) => r.kind)).toEqual(['side', 'count_tokens']);
  });
});

describe('Gemini', () => {
  it('streams a functionCall for write_file, then text with finishReason STOP', async () => {
    llm.when('make it', [{ kind: 'write', path: '/w/g.txt', content: 'G' }]);
    const tools = [{ functionDeclarations: [{ name: 'write_file', parametersJsonSchema: writeSchema }] }];
    const frames = (await sseData(
      await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', {
        contents: [
          { role: 'user', parts: [{ text: 'session context' }] },
          { role: 'user', parts: [{ text: 'please make it' }] },
        ],
        tools,
      }),
    )) as Array<Record<string, any>>;
    const last = frames.at(-1)!['candidates'][0];
    expect(last['finishReason']).toBe('STOP');
    expect(last['content']['parts'][0]['functionCall']).toMatchObject({
      name: 'write_file',
      args: { file_path: '/w/g.txt', content: 'G' },
    });

    const after = (await sseData(
      await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', {
        contents: [
          { role: 'user', parts: [{ text: 'please make it' }] },
          { role: 'model', parts: [{ functionCall: { name: 'write_file', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: 'ok, written' } } }] },
        ],
        tools,
      }),
    )) as Array<Record<string, any>>;
    const text = after.map((f) => f['candidates'][0]['content']['parts'][0]['text'] as string).join('');
    expect(text).toBe('fake-llm: all 1 step(s) done. Last tool result: ok, written');
    expect(after.at(-1)!['candidates'][0]['finishReason']).toBe('STOP');
  });

  it('answers a JSON-schema side call with a conforming document, and countTokens', async () => {
    const res = await post('/v1beta/models/gemini-flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'who speaks next?' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'object',
          properties: {
            reasoning: { type: 'string' },
            next_speaker: { type: 'string', enum: ['model', 'user'] },
            score: { type: 'integer' },
          },
          required: ['reasoning', 'next_speaker'],
        },
      },
    });
    const body = (await res.json()) as Record<string, any>;
    const doc = JSON.parse(body['candidates'][0]['content']['parts'][0]['text'] as string) as Record<string, unknown>;
    expect(doc).toEqual({ reasoning: 'fake reasoning', next_speaker: 'user', score: 0 });
    const count = (await (await post('/v1beta/models/gemini-flash:countTokens', {})).json()) as Record<string, unknown>;
    expect(count['totalTokens']).toBeGreaterThan(0);
  });
});

describe('OpenAI Chat Completions', () => {
  it('streams a tool_calls delta for the shell tool, then text, then [DONE]', async () => {
    llm.setScript([{ kind: 'shell', command: 'ls' }, { kind: 'text', text: 'listed' }]);
    const tools = [
      {
        type: 'function',
        function: {
          name: 'run_shell_command',
          parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      },
    ];
    const chunks = (await sseData(
      await post('/v1/chat/completions', {
        model: 'fake-model',
        stream: true,
        tools,
        messages: [
          { role: 'system', content: 'you are a test' },
          { role: 'user', content: 'list files' },
        ],
      }),
    )) as Array<Record<string, any> | '[DONE]'>;
    expect(chunks.at(-1)).toBe('[DONE]');
    const deltas = chunks.filter((c): c is Record<string, any> => c !== '[DONE]').map((c) => c['choices'][0]);
    const calls = deltas.flatMap((d) => (d['delta']['tool_calls'] ?? []) as Array<Record<string, any>>);
    expect(calls[0]?.['function']['name']).toBe('run_shell_command');
    expect(JSON.parse(calls.map((c) => c['function']['arguments'] as string).join(''))).toEqual({ command: 'ls' });
    expect(deltas.at(-1)?.['finish_reason']).toBe('tool_calls');

    const res = await post('/v1/chat/completions', {
      model: 'fake-model',
      tools,
      messages: [
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_shell_command', arguments: '{"command":"ls"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
    });
    const done = (await res.json()) as Record<string, any>;
    expect(done['choices'][0]['message']['content']).toBe('listed');
    expect(done['choices'][0]['finish_reason']).toBe('stop');
  });
});

describe('scripting and logging', () => {
  it('explains a missing tool in the reply and in the log instead of hanging', async () => {
    llm.setScript([{ kind: 'write', path: '/w/x', content: 'x' }]);
    const res = await post('/v1/messages', {
      model: 'm',
      tools: [{ name: 'Read', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'go' }],
    });
    const msg = (await res.json()) as Record<string, any>;
    expect(msg['content'][0]['text']).toContain('no write tool among [Read]');
    expect(llm.requests()[0]?.problems[0]).toContain('no write tool');
  });

  it('plays steps written in the prompt, and rules take precedence over scripts', async () => {
    const tools = [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
    const fromPrompt = (await (
      await post('/v1/messages', { model: 'm', tools, messages: [{ role: 'user', content: 'do <<shell:echo 1>>' }] })
    ).json()) as Record<string, any>;
    expect(fromPrompt['content'].at(-1)).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'echo 1' } });

    llm.addRule((req) => (req.promptText.includes('special') ? { type: 'text', text: 'by rule' } : undefined));
    const byRule = (await (
      await post('/v1/messages', { model: 'm', tools, messages: [{ role: 'user', content: 'special <<shell:echo 1>>' }] })
    ).json()) as Record<string, any>;
    expect(byRule['content']).toEqual([{ type: 'text', text: 'by rule' }]);
  });

  it('logs unknown endpoints with a 404', async () => {
    const res = await fetch(`${llm.url}/api/hello`);
    expect(res.status).toBe(404);
    const entry = await llm.waitForRequest((r) => r.path === '/api/hello', { timeoutMs: 5_000 });
    expect(entry.problems[0]).toContain('unknown endpoint');
  });

  it('stops a slow stream when the client hangs up, and logs it as aborted', async () => {
    llm.setScript([{ kind: 'slow', chunks: 1000, chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const res = await fetch(`${llm.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'Bash' }], messages: [{ role: 'user', content: 'slow' }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read(); // the stream has started
    controller.abort();
    const entry = await llm.waitForRequest((r) => r.done, { timeoutMs: 10_000 });
    expect(entry.aborted).toBe(true);
  });
});
