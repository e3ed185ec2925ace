import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACP_CONFORMANCE, conformanceMarkdown, type ConformanceSection } from '../../src/shared/acp-conformance';
import { UPDATE_KINDS } from '../../src/shared/acp-thread';
import { CLIENT_CAPABILITIES } from '../../src/main/core/acp/runtimes/agent-runtime';

/**
 * Issue 14: the conformance table decides every method, update kind and content type the SDK's own schema
 * defines (read from the installed SDK, stable and unstable), and names nothing the SDK does not have.
 */

const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const schema = (file: string) => JSON.parse(readFileSync(repo(`node_modules/@agentclientprotocol/sdk/schema/v1/${file}`), 'utf8')) as { $defs: Record<string, unknown> };

/** Every value of `key` anywhere under `node` (x-method names; `const` values of a discriminator). */
function collect(node: unknown, test: (o: Record<string, unknown>) => string | null, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) collect(x, test, out);
  else if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    const v = test(o);
    if (v !== null) out.add(v);
    for (const x of Object.values(o)) collect(x, test, out);
  }
  return out;
}

/** The `const` of property `prop` in each variant of a oneOf/anyOf definition. */
const discriminators = (def: unknown, prop: string) =>
  collect(def, (o) => {
    const props = o.properties as Record<string, { const?: unknown }> | undefined;
    const c = props?.[prop]?.const;
    return typeof c === 'string' ? c : null;
  });

function defined(file: string): Record<ConformanceSection, Set<string>> {
  const s = schema(file);
  return {
    methods: collect(s, (o) => (typeof o['x-method'] === 'string' ? o['x-method'] : null)),
    sessionUpdates: discriminators(s.$defs.SessionUpdate, 'sessionUpdate'),
    contentBlocks: discriminators(s.$defs.ContentBlock, 'type'),
    toolCallContent: discriminators(s.$defs.ToolCallContent, 'type'),
  };
}

const stable = defined('schema.json');
const unstable = defined('schema.unstable.json');
const sections = Object.keys(ACP_CONFORMANCE) as ConformanceSection[];

describe('ACP conformance table', () => {
  it('reads a schema with something in every section', () => {
    for (const section of sections) expect(stable[section].size, section).toBeGreaterThan(0);
    expect(stable.methods).toContain('session/prompt');
    expect(unstable.sessionUpdates).toContain('agent_message_chunk');
  });

  it.each(sections)('decides every %s the SDK defines, and only those', (section) => {
    const table = new Set(Object.keys(ACP_CONFORMANCE[section]));
    const sdk = new Set([...stable[section], ...unstable[section]]);
    expect([...sdk].filter((n) => !table.has(n)).sort(), 'defined by the SDK, not decided in src/shared/acp-conformance.ts').toEqual([]);
    expect([...table].filter((n) => !sdk.has(n)).sort(), 'in the table, no longer in the SDK').toEqual([]);
  });

  it('takes notices and compactions as stable ACP (2026-10-09): in the stable schema, with the client capabilities that ask for them', () => {
    for (const kind of ['notice', 'compaction_update', 'compaction_summary_chunk']) {
      expect(stable.sessionUpdates, kind).toContain(kind);
      expect(ACP_CONFORMANCE.sessionUpdates[kind as keyof typeof ACP_CONFORMANCE.sessionUpdates].status, kind).toBe('supported');
    }
    const sessionCaps = (schema('schema.json').$defs.ClientSessionCapabilities as { properties: Record<string, unknown> }).properties;
    for (const cap of Object.keys(CLIENT_CAPABILITIES.session ?? {})) expect(sessionCaps, `clientCapabilities.session.${cap}`).toHaveProperty(cap);
    expect(CLIENT_CAPABILITIES.session).toMatchObject({ notices: {}, compaction: {} });
  });

  it('agrees with the thread model about update kinds', () => {
    const folded = Object.entries(UPDATE_KINDS).flatMap(([k, row]) => (row.apply !== null ? [k] : []));
    const supported = Object.entries(ACP_CONFORMANCE.sessionUpdates).flatMap(([k, c]) => (c.status === 'supported' ? [k] : []));
    expect(supported.sort()).toEqual(folded.sort());
  });

  it('is rendered in docs/conformance.md', () => {
    const onlyUnstable = new Set(sections.flatMap((s) => [...unstable[s]].filter((n) => !stable[s].has(n)).map((n) => `${s}:${n}`)));
    const markdown = conformanceMarkdown(onlyUnstable);
    if (process.env.SWITCHBOARD_WRITE_CONFORMANCE === '1') writeFileSync(repo('docs/conformance.md'), markdown);
    expect(readFileSync(repo('docs/conformance.md'), 'utf8'), 'docs/conformance.md is stale: run this test with SWITCHBOARD_WRITE_CONFORMANCE=1').toBe(markdown);
  });
});
