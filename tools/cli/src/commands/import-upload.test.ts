import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OperatorApiError } from '../operator-api';
import { addPart, fileParts, withRetries, type UploadReport } from './import-upload';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-upload-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

async function partsOf(p: string, partBytes: number) {
  const parts: { text: string; lines: number }[] = [];
  for await (const part of fileParts(p, partBytes)) parts.push({ text: part.bytes.toString('utf8'), lines: part.lines });
  return parts;
}

describe('fileParts', () => {
  it('when a file is larger than a part, then it is cut at line ends into parts that together are the file, each with its line count', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `{"n":${i}}`).join('\n') + '\n';

    const parts = await partsOf(file('a.ndjson', text), 64);

    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.text).join('')).toBe(text);
    expect(parts.every((p) => p.text.endsWith('\n'))).toBe(true);
    expect(parts.reduce((n, p) => n + p.lines, 0)).toBe(50);
  });

  it('when the last line has no newline, then it still counts as a line; an empty file has no parts', async () => {
    expect(await partsOf(file('b.ndjson', 'a\nb\nc'), 1024)).toEqual([{ text: 'a\nb\nc', lines: 3 }]);
    expect(await partsOf(file('c.ndjson', ''), 1024)).toEqual([]);
  });

  it('when a line is longer than a part, then its part is longer rather than the line cut', async () => {
    const long = 'x'.repeat(200);

    expect(await partsOf(file('d.ndjson', `a\n${long}\nb\n`), 16)).toEqual([
      { text: `a\n${long}\n`, lines: 2 },
      { text: 'b\n', lines: 1 },
    ]);
  });
});

describe('addPart', () => {
  it("when parts' reports are added, then counts add up and each bad line is numbered in the file, not in its part", () => {
    const total: UploadReport = { read: 0, imported: 0, skipped: 0, errors: [] };

    addPart(total, { read: 3, imported: 2, skipped: 1, errors: [{ line: 2, message: 'not valid JSON' }] }, 0);
    addPart(total, { read: 2, imported: 1, skipped: 1, errors: [{ line: 1, message: 'email must be a valid email address' }] }, 3);

    expect(total).toEqual({
      read: 5,
      imported: 3,
      skipped: 2,
      errors: [
        { line: 2, message: 'not valid JSON' },
        { line: 4, message: 'email must be a valid email address' },
      ],
    });
  });
});

describe('withRetries', () => {
  const waits: number[] = [];
  const wait = async (ms: number) => void waits.push(ms);
  beforeEach(() => (waits.length = 0));

  it('when the gateway answers 429, 503 or 408, then the request is sent again after the Retry-After it asked for (1 s without one)', async () => {
    const answers = [
      new OperatorApiError('rate_limited', 'busy', 429, 2),
      new OperatorApiError('service_unavailable', 'away', 503, 1),
      new OperatorApiError('request_timeout', 'the request was not received in time', 408),
      'done',
    ];

    const result = await withRetries(async () => {
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next;
    }, wait);

    expect(result).toBe('done');
    expect(waits).toEqual([2000, 2000, 3000]);
  });

  it('when the answer is a client error, then it is not tried again; a lasting outage fails after the last try', async () => {
    let calls = 0;
    await expect(
      withRetries(async () => {
        calls += 1;
        throw new OperatorApiError('invalid_request', 'bad', 400);
      }, wait),
    ).rejects.toThrow('invalid_request: bad');
    expect(calls).toBe(1);

    await expect(
      withRetries(async () => {
        throw new OperatorApiError('service_unavailable', 'away', 503);
      }, wait),
    ).rejects.toThrow('service_unavailable');
    expect(waits).toHaveLength(5);
  });
});
