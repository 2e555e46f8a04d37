import type { EffectRecord } from '../domain/batch-store';
import { effectsPublisher } from './publish-effects';

const effect = (id: string): EffectRecord => ({
  id,
  eventId: 'e1',
  accountId: 'a1',
  playbookId: 'p1',
  email: 'a@example.com',
  action: 'started',
  at: new Date(0),
});

describe('effectsPublisher', () => {
  it('when every send is acknowledged, then the effects are marked published, once', async () => {
    const calls: string[] = [];
    const publish = effectsPublisher({
      send: async (effects) => void calls.push(`send ${effects.map((e) => e.id)}`),
      markPublished: async (ids) => void calls.push(`mark ${ids}`),
    });
    await publish([effect('f1'), effect('f2')]);
    expect(calls).toEqual(['send f1,f2', 'mark f1,f2']);
  });

  it('when the send fails, then nothing is marked (the effects go out again) and the failure is passed on', async () => {
    const marked: string[][] = [];
    const publish = effectsPublisher({ send: () => Promise.reject(new Error('broker down')), markPublished: async (ids) => void marked.push(ids) });
    await expect(publish([effect('f1')])).rejects.toThrow('broker down');
    expect(marked).toEqual([]);
  });
});
