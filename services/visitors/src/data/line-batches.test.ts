import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileLineBatches, lineBatches } from './line-batches.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-line-batches-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function linesOf(batches: AsyncIterable<string[]>): Promise<string[]> {
  const lines: string[] = [];
  for await (const batch of batches) for (const line of batch) lines.push(line);
  return lines;
}

describe("a file's lines in batches", () => {
  it('splits on \\n, drops a \\r before it and a byte-order mark, and keeps a last line without a newline', async () => {
    const file = path.join(dir, 'crlf.csv');
    fs.writeFileSync(file, '\uFEFFstart,end\r\n1.0.0.0,1.0.0.9\r\n\r\nlast');
    expect(await linesOf(fileLineBatches(file))).toEqual(['start,end', '1.0.0.0,1.0.0.9', '', 'last']);
  });

  it('keeps a character whose bytes straddle two chunks of the file whole', async () => {
    const file = path.join(dir, 'big.csv');
    // Six bytes with the newline: the 1 MiB chunk ends after 174,762 lines and the first byte of an é.
    const line = 'xxxé';
    fs.writeFileSync(file, `${Array.from({ length: 200_000 }, () => line).join('\n')}\n`);
    const lines = await linesOf(fileLineBatches(file));
    expect(lines).toHaveLength(200_000);
    expect(lines.every((l) => l === line)).toBe(true);
  });

  it('batches the lines of any iterator', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => String(i));
    const batches: string[][] = [];
    for await (const batch of lineBatches(lines[Symbol.iterator]())) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500]);
  });
});
