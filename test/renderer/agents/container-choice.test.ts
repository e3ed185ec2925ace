import { describe, expect, it } from 'vitest';
import { containerChoice, type ContainerDraft } from '../../../src/renderer/src/features/agents/ContainerFields';

const draft = (over: Partial<ContainerDraft> = {}): ContainerDraft => ({ source: 'image', image: 'img:1', allow: [], network: 'api', allowHosts: null, memoryMiB: 1024, cpus: 1, ...over });

describe('the new-session form\'s network "only the agent\'s API"', () => {
  it("sends the agent's API hosts when the list was not edited, and the list as typed when it was", () => {
    expect(containerChoice(draft(), null, ['api.anthropic.com'])).toMatchObject({ fence: { network: 'api', allowHosts: ['api.anthropic.com'] } });
    expect(containerChoice(draft({ allowHosts: 'api.anthropic.com\n 10.0.0.5:8080, *.example.com ' }), null, ['x.test'])).toMatchObject({ fence: { allowHosts: ['api.anthropic.com', '10.0.0.5:8080', '*.example.com'] } });
  });

  it('says what is wrong with a host typed, or an empty list; other networks send no list', () => {
    expect(containerChoice(draft({ allowHosts: 'good.test\nhttp://bad/path' }), null)).toEqual({ error: 'Not a host for the allow-list: "http://bad/path" (a name, name:port or *.suffix).' });
    expect(containerChoice(draft({ allowHosts: '' }), null, ['api.anthropic.com'])).toEqual({ error: "Name the hosts the agent's API is on (the allow-list is empty)." });
    expect(containerChoice(draft({ network: 'none' }), null, ['api.anthropic.com'])).toMatchObject({ fence: { network: 'none' } });
    expect((containerChoice(draft({ network: 'none' }), null, ['api.anthropic.com']) as { fence: object }).fence).not.toHaveProperty('allowHosts');
  });
});

describe("the new-session form's source of the container", () => {
  it('sends the image shown as chosen when the folder has no devcontainer.json (the draft still says the repository)', () => {
    expect(containerChoice(draft({ source: 'repo', network: 'none', image: 'localhost/img:2' }), null)).toEqual({ source: { kind: 'image', image: 'localhost/img:2' }, fence: { network: 'none', memoryMiB: 1024, cpus: 1 } });
  });
});
