import { describe, expect, it } from 'vitest';
import { checkUpdate } from '../../../src/shared/acp-thread/update-check';

const chunk = (content: unknown) => ({ sessionUpdate: 'agent_message_chunk', content });
const verdict = (update: unknown): string => {
  const r = checkUpdate(update);
  return r.ok ? 'ok' : r.message;
};

describe('session/update validation', () => {
  it('accepts every kind of content block the schema allows', () => {
    for (const content of [
      { type: 'text', text: 'hi' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
      { type: 'resource', resource: { uri: 'file:///a.ts', text: 'x' } },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AA==' } },
    ]) {
      expect(verdict(chunk(content)), JSON.stringify(content)).toBe('ok');
    }
  });

  // A union is checked by its tag: the warning names what the block's own kind lacks, not a field of another kind.
  it('says what an invalid content block of a known kind is missing', () => {
    expect(verdict(chunk({ type: 'image', data: 'iVBORw0KGgo=' }))).toMatch(/\/content must have required property 'mimeType'/);
    expect(verdict(chunk({ type: 'audio', mimeType: 'audio/wav' }))).toMatch(/\/content must have required property 'data'/);
    expect(verdict(chunk({ type: 'resource_link', name: 'a.ts' }))).toMatch(/\/content must have required property 'uri'/);
    expect(verdict(chunk({ type: 'text' }))).toMatch(/\/content must have required property 'text'/);
    expect(verdict(chunk({ type: 'text', text: 7 }))).toMatch(/\/content\/text must be string/);
  });

  it('refuses a content block of an unknown kind, or with no kind, naming the tag', () => {
    expect(verdict(chunk({ type: 'video', data: 'x' }))).toMatch(/invalid agent_message_chunk update: \/content .*"type"/);
    expect(verdict(chunk({ text: 'no type' }))).toMatch(/invalid agent_message_chunk update: \/content .*"type"/);
    expect(verdict(chunk({ type: 42 }))).toMatch(/\/content .*"type"/);
  });

  it('refuses updates of unknown kinds and non-objects, and checks each kind by its own schema', () => {
    expect(checkUpdate({ sessionUpdate: 'mystery_kind' })).toMatchObject({ ok: false, unknownKind: true });
    expect(checkUpdate(null)).toMatchObject({ ok: false, unknownKind: false });
    expect(checkUpdate([chunk({ type: 'text', text: 'x' })])).toMatchObject({ ok: false, unknownKind: false });
    expect(verdict({ sessionUpdate: 'usage_update', used: 1, size: 2 })).toBe('ok');
    expect(verdict({ sessionUpdate: 'usage_update', used: 'many', size: 2 })).toMatch(/invalid usage_update update: \/used must be integer/);
    expect(verdict({ sessionUpdate: 'current_mode_update' })).toMatch(/invalid current_mode_update update: .*currentModeId/);
    expect(verdict({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.ts', kind: 'read', status: 'pending' })).toBe('ok');
    expect(verdict({ sessionUpdate: 'tool_call', title: 'no id' })).toMatch(/invalid tool_call update: .*toolCallId/);
  });
});
