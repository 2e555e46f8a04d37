import { decideEffects } from './decide-effects';

describe('decideEffects', () => {
  it('when the name triggers a playbook the person is not in, then it starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['a'], activePlaybookIds: [] })).toEqual({ stop: [], start: ['a'] });
  });

  it('when the name is an exit of a playbook the person is active in, then it stops', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: [], activePlaybookIds: ['a'] })).toEqual({ stop: ['a'], start: [] });
  });

  it('when the name is an exit of a playbook the person is not in, then nothing happens', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: [], activePlaybookIds: [] })).toEqual({ stop: [], start: [] });
  });

  it('when the person is already active in a triggered playbook, then no second enrollment starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['a'], activePlaybookIds: ['a'] })).toEqual({ stop: [], start: [] });
  });

  it('when the name both exits and triggers an active playbook, then it stops and starts again', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: ['a'], activePlaybookIds: ['a'] })).toEqual({ stop: ['a'], start: ['a'] });
  });

  it('when one event exits one playbook and triggers another, then it does both jobs and touches nothing else', () => {
    expect(decideEffects({ exitPlaybookIds: ['nurture'], triggerPlaybookIds: ['onboarding', 'onboarding'], activePlaybookIds: ['nurture', 'other'] })).toEqual({
      stop: ['nurture'],
      start: ['onboarding'],
    });
  });
});
