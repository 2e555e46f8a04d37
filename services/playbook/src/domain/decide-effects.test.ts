import { decideEffects } from './decide-effects';

describe('decideEffects', () => {
  it('when the name triggers a playbook the person is not in, then it starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['a'], activePlaybookIds: [] })).toMatchObject({ stop: [], start: ['a'] });
  });

  it('when the name is an exit of a playbook the person is active in, then it stops', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: [], activePlaybookIds: ['a'] })).toMatchObject({ stop: ['a'], start: [] });
  });

  it('when the name is an exit of a playbook the person is not in, then nothing happens', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: [], activePlaybookIds: [] })).toMatchObject({ stop: [], start: [] });
  });

  it('when the person is already active in a triggered playbook, then no second enrollment starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['a'], activePlaybookIds: ['a'] })).toMatchObject({ stop: [], start: [] });
  });

  it('when the name both exits and triggers an active playbook, then it stops and starts again', () => {
    expect(decideEffects({ exitPlaybookIds: ['a'], triggerPlaybookIds: ['a'], activePlaybookIds: ['a'] })).toMatchObject({ stop: ['a'], start: ['a'] });
  });

  it('when one event exits one playbook and triggers another, then it does both jobs and touches nothing else', () => {
    expect(
      decideEffects({ exitPlaybookIds: ['nurture'], triggerPlaybookIds: ['onboarding', 'onboarding'], activePlaybookIds: ['nurture', 'other'] }),
    ).toMatchObject({
      stop: ['nurture'],
      start: ['onboarding'],
    });
  });

  it('when a when_inactive playbook is triggered while active, or an exit names one the person is not in, then the receipt reasons say why nothing changed', () => {
    expect(decideEffects({ exitPlaybookIds: ['x'], triggerPlaybookIds: ['a'], activePlaybookIds: ['a'] }).unchanged).toEqual([
      { playbookId: 'a', reason: 'already_active' },
      { playbookId: 'x', reason: 'not_active' },
    ]);
  });
});

describe('decideEffects: re-enrollment policies', () => {
  const policies = new Map([
    ['o', 'once'],
    ['r', 'restart'],
    ['w', 'when_inactive'],
  ] as const);

  it('when a once playbook is triggered for someone never enrolled, then it starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['o'], activePlaybookIds: [], policies, everEnrolledPlaybookIds: [] })).toEqual({
      stop: [],
      start: ['o'],
      unchanged: [],
    });
  });

  it('when a once playbook is triggered for someone enrolled before (now stopped), then nothing starts, by the policy', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['o'], activePlaybookIds: [], policies, everEnrolledPlaybookIds: ['o'] })).toEqual({
      stop: [],
      start: [],
      unchanged: [{ playbookId: 'o', reason: 'reenrollment_policy' }],
    });
  });

  it('when a once playbook both exits and triggers on the name for an active person, then it only stops', () => {
    expect(decideEffects({ exitPlaybookIds: ['o'], triggerPlaybookIds: ['o'], activePlaybookIds: ['o'], policies, everEnrolledPlaybookIds: ['o'] })).toEqual({
      stop: ['o'],
      start: [],
      unchanged: [],
    });
  });

  it('when a restart playbook is triggered while active, then it stops and starts again; while inactive it just starts', () => {
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['r'], activePlaybookIds: ['r'], policies })).toEqual({
      stop: ['r'],
      start: ['r'],
      unchanged: [],
    });
    expect(decideEffects({ exitPlaybookIds: ['r'], triggerPlaybookIds: ['r'], activePlaybookIds: ['r'], policies })).toEqual({
      stop: ['r'],
      start: ['r'],
      unchanged: [],
    });
    expect(decideEffects({ exitPlaybookIds: [], triggerPlaybookIds: ['r'], activePlaybookIds: [], policies })).toEqual({
      stop: [],
      start: ['r'],
      unchanged: [],
    });
  });

  it('when the person is suppressed, then no policy starts anything, and exits still stop', () => {
    expect(decideEffects({ exitPlaybookIds: ['w'], triggerPlaybookIds: ['o', 'r', 'w'], activePlaybookIds: ['w', 'r'], policies, suppressed: true })).toEqual({
      stop: ['w'],
      start: [],
      unchanged: [
        { playbookId: 'o', reason: 'suppressed' },
        { playbookId: 'r', reason: 'suppressed' },
      ],
    });
  });
});
