import { describe, expect, it } from 'vitest';
import {
  SETTING_KEYS,
  SETTINGS,
  defaultSettings,
  parseSetting,
  perAgent,
  settingDef,
  settingEntrySchema,
  settingValuesSchema,
} from '../../src/shared/contract/settings';
import { requests } from '../../src/shared/contract';

/** The registry of settings: every key is described, its default fits its schema, values are checked per key. */
describe('settings registry', () => {
  it('gives every key a schema, a default that fits it, a label, a description and a scope', () => {
    for (const key of SETTING_KEYS) {
      const d = settingDef(key);
      expect(d.schema.safeParse(d.default).success, key).toBe(true);
      expect(d.label.length, key).toBeGreaterThan(0);
      expect(d.description.length, key).toBeGreaterThan(0);
      expect(['app', 'agent']).toContain(d.scope);
    }
    expect(settingValuesSchema.safeParse(defaultSettings()).success).toBe(true);
  });

  it('holds every setting the app had before, and the working-folder policy', () => {
    for (const key of [
      'agents.idleStopMinutes',
      'agents.autoRestart',
      'agents.floodPerSecond',
      'notifications.turnEnd',
      'notifications.permission',
      'registry.url',
      'workspace.layout',
      'sessions.recentFolders',
      'mcp.servers',
      'appearance.theme',
      'agents.processPerFolder',
    ])
      expect(SETTING_KEYS).toContain(key);
    expect(SETTINGS['agents.processPerFolder'].default).toBe(true);
  });

  it('checks a value against its own key: the right type passes, a wrong one or an unknown key fails', () => {
    expect(settingEntrySchema.safeParse({ key: 'appearance.theme', value: 'dark' }).success).toBe(true);
    expect(settingEntrySchema.safeParse({ key: 'appearance.theme', value: 'purple' }).success).toBe(false);
    expect(settingEntrySchema.safeParse({ key: 'agents.autoRestart', value: 'yes' }).success).toBe(false);
    expect(settingEntrySchema.safeParse({ key: 'agents.idleStopMinutes', value: -1 }).success).toBe(false);
    expect(settingEntrySchema.safeParse({ key: 'no.such.key', value: 1 }).success).toBe(false);
    expect(settingEntrySchema.safeParse({ key: 'appearance.theme', value: 'dark', extra: 1 }).success).toBe(false);
    // The contract's request takes the same union (no unknown values over the wire).
    expect(requests['settings.set'].params.safeParse({ key: 'appearance.threadFontSize', value: 1000 }).success).toBe(false);
    expect(requests['settings.set'].params.safeParse({ key: 'appearance.threadFontSize', value: 15 }).success).toBe(true);
  });

  it('reads an absent value as the default, and a value that does not fit as the default with the reason', () => {
    expect(parseSetting('appearance.theme', undefined)).toEqual({ value: 'system', problem: null });
    expect(parseSetting('appearance.theme', 'light')).toEqual({ value: 'light', problem: null });
    const bad = parseSetting('appearance.theme', 'purple');
    expect(bad.value).toBe('system');
    expect(bad.problem).toMatch(/Invalid option|expected one of/i);
    expect(parseSetting('agents.maxRestarts', 'lots').value).toBe(5);
    expect(parseSetting('workspace.layout', null)).toEqual({ value: null, problem: null });
    expect(parseSetting('sessions.recentFolders', ['relative/path']).value).toEqual([]);
  });

  it("an agent-scoped value is a record per agent: the agent's entry, else the default", () => {
    const record = { 'agent-a': ['files'], 'agent-b': [] as string[] };
    expect(perAgent(record, 'agent-a', ['all'])).toEqual(['files']);
    expect(perAgent(record, 'agent-b', ['all'])).toEqual([]);
    expect(perAgent(record, 'agent-c', ['all'])).toEqual(['all']);
    expect(perAgent(undefined, 'agent-a', ['all'])).toEqual(['all']);
    expect(perAgent(record, 'constructor', ['all'])).toEqual(['all']);
  });
});
