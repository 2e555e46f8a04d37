import { createSecretBox, UnknownSecretKeyError } from './secret-box';
import { newSecret } from './signing';

const KEY = 'a-webhooks-secret-key-of-at-least-32-characters';
const OTHER = 'another-webhooks-secret-key-of-32-characters-or-more';
const ENDPOINT = '0b7e4c59-2d0a-4b0e-9a53-6f1c2f0d8e11';

describe('the signing secrets at rest', () => {
  it('when a secret is sealed, then the stored value shows none of it and opens to it for its endpoint', () => {
    const box = createSecretBox(KEY);
    const secret = newSecret();
    const stored = box.seal(ENDPOINT, secret);
    expect(stored).toMatch(new RegExp(`^wsk1\\.${box.currentKeyId}\\.[A-Za-z0-9_-]+$`));
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(box.open(ENDPOINT, stored)).toBe(secret);
    expect(box.isCurrent(stored)).toBe(true);
  });

  it('when the same secret is sealed twice, then the values differ (a fresh nonce each time)', () => {
    const box = createSecretBox(KEY);
    const secret = newSecret();
    expect(box.seal(ENDPOINT, secret)).not.toBe(box.seal(ENDPOINT, secret));
  });

  it("when a sealed value is put on another endpoint's row, or altered, then it does not open", () => {
    const box = createSecretBox(KEY);
    const stored = box.seal(ENDPOINT, newSecret());
    expect(() => box.open('5f9d6a1e-8c3b-4f7a-9e2d-1a2b3c4d5e6f', stored)).toThrow();
    const body = stored.split('.')[2]!;
    const flipped = `${stored.slice(0, stored.length - body.length)}${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    expect(() => box.open(ENDPOINT, flipped)).toThrow();
  });

  it('when a stored value is a whsec_ secret from before encryption, then it opens as itself and is not current', () => {
    const box = createSecretBox(KEY);
    const legacy = newSecret();
    expect(box.open(ENDPOINT, legacy)).toBe(legacy);
    expect(box.isCurrent(legacy)).toBe(false);
  });

  it('when the key changes, then values sealed under a previous key still open with it listed, and are not current', () => {
    const secret = newSecret();
    const old = createSecretBox(KEY).seal(ENDPOINT, secret);
    const rotated = createSecretBox(OTHER, [KEY]);
    expect(rotated.open(ENDPOINT, old)).toBe(secret);
    expect(rotated.isCurrent(old)).toBe(false);
    expect(() => createSecretBox(OTHER).open(ENDPOINT, old)).toThrow(UnknownSecretKeyError);
  });

  it('when a key is named, then its id says which key sealed a value and nothing of the key', () => {
    const [a, b] = [createSecretBox(KEY), createSecretBox(OTHER)];
    expect(a.currentKeyId).toMatch(/^[0-9a-f]{8}$/);
    expect(a.currentKeyId).not.toBe(b.currentKeyId);
    expect(createSecretBox(KEY).currentKeyId).toBe(a.currentKeyId);
  });
});
