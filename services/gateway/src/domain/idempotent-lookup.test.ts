import { lookupFingerprint } from './idempotent-lookup.js';

describe('lookupFingerprint', () => {
  it('when two bodies differ only in key order, at any depth, then they have one fingerprint', () => {
    const a = lookupFingerprint('enrichment/bulk', { items: [{ email: 'a@x.io', required: ['job.title'] }, { phone: '1' }] });
    const b = lookupFingerprint('enrichment/bulk', { items: [{ required: ['job.title'], email: 'a@x.io' }, { phone: '1' }] });
    expect(a).toBe(b);
  });

  it('when the values, the order of a list or the path differ, then the fingerprints differ', () => {
    const base = lookupFingerprint('enrichment', { email: 'a@x.io' });
    expect(lookupFingerprint('enrichment', { email: 'b@x.io' })).not.toBe(base);
    expect(lookupFingerprint('enrichment/bulk', { email: 'a@x.io' })).not.toBe(base);
    expect(lookupFingerprint('enrichment', { items: [1, 2] })).not.toBe(lookupFingerprint('enrichment', { items: [2, 1] }));
  });
});
