// `npm start` and `npm test` run their script in place of npm's shell (exec): npm forwards SIGTERM
// to its child, and a shell in between dies of it without passing it on, which left
// scripts/start.js and every service it started running after `kill <npm's pid>` (2026-11-26).
import fs from 'node:fs';
import path from 'node:path';

const { scripts } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('package.json scripts that own processes', () => {
  it.each(['start', 'test'])('npm %s execs its node script, so a SIGTERM to npm reaches it', (name) => {
    expect(scripts[name]).toMatch(/^exec node scripts\/[\w-]+\.js$/);
  });
});
