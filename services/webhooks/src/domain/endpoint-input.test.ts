import { parseEndpointChanges, parseNewEndpoint } from './endpoint-input';

describe('webhook endpoint bodies', () => {
  it('when a subscription names its url and events, then it is accepted with duplicates dropped', () => {
    expect(parseNewEndpoint({ url: ' https://example.com/hook ', events: ['enrollment.started', 'enrollment.started'] })).toEqual({
      kind: 'webhook',
      url: 'https://example.com/hook',
      events: ['enrollment.started'],
    });
  });

  it.each([
    [{ events: ['enrollment.started'] }, 'url is required'],
    [{ url: 'https://example.com' }, 'events is required'],
    [{ url: 'https://example.com', events: [] }, 'at least one event'],
    [
      { url: 'https://example.com', events: ['enrollment.paused'] },
      'each event must be one of enrollment.started, enrollment.stopped, visitor.identified, company.visited',
    ],
    [{ url: 'https://example.com', events: ['enrollment.started'], secret: 'x' }, 'unknown field(s): secret'],
    [[], 'body must be a JSON object'],
  ])('when the body is %j, then it is refused: %s', (body, message) => {
    expect(() => parseNewEndpoint(body)).toThrow(message);
  });

  it('when a subscription names company.visited, then it is accepted', () => {
    expect(parseNewEndpoint({ url: 'https://example.com/hook', events: ['company.visited'] }).events).toEqual(['company.visited']);
    expect(parseEndpointChanges({ events: ['visitor.identified', 'company.visited'] }).events).toEqual(['visitor.identified', 'company.visited']);
  });

  it('when a Slack endpoint names no events, then it gets both segment alerts; a webhook endpoint of kind webhook still needs its events', () => {
    expect(parseNewEndpoint({ kind: 'slack', url: 'https://hooks.slack.com/services/T1/B2/c3' })).toEqual({
      kind: 'slack',
      url: 'https://hooks.slack.com/services/T1/B2/c3',
      events: ['segment.entered', 'segment.digest'],
    });
    expect(parseNewEndpoint({ kind: 'slack', url: 'https://hooks.slack.com/services/T1/B2/c3', events: ['segment.digest'] }).events).toEqual([
      'segment.digest',
    ]);
    expect(() => parseNewEndpoint({ kind: 'webhook', url: 'https://example.com' })).toThrow('events is required');
    expect(() => parseNewEndpoint({ kind: 'email', url: 'https://example.com', events: ['segment.digest'] })).toThrow('kind must be one of webhook, slack');
  });

  it('when a change names nothing, or a wrong type, then it is refused', () => {
    expect(() => parseEndpointChanges({})).toThrow('nothing to change');
    expect(() => parseEndpointChanges({ enabled: 'yes' })).toThrow('enabled must be true or false');
    expect(parseEndpointChanges({ enabled: true })).toEqual({ enabled: true });
  });
});
