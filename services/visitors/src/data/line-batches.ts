// A text file's lines in batches, a chunk of the file at a time: the importer parses a batch with no
// await per line, which is where a million-line file spent most of its time behind readline (an
// async iterator step per line). Lines end at \n, a \r before it dropped; a byte-order mark is dropped.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const CHUNK_BYTES = 1024 * 1024;
const LINES_PER_BATCH = 1000;

const withoutCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);

export async function* fileLineBatches(path: string): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let first = true;
  for await (const chunk of fs.createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    let text = rest + decoder.write(chunk as Buffer);
    if (first && text.startsWith('\uFEFF')) text = text.slice(1);
    first = false;
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    // Most files end their lines with \n alone: no pass over the lines for them.
    yield text.includes('\r') ? lines.map(withoutCr) : lines;
  }
  rest += decoder.end();
  if (rest !== '') yield [withoutCr(rest)];
}

/** Lines from any iterator, in batches (each line still awaited: only the parsing is batched). */
export async function* lineBatches(lines: AsyncIterator<string> | Iterator<string>): AsyncGenerator<string[]> {
  let batch: string[] = [];
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    batch.push(next.value);
    if (batch.length >= LINES_PER_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
