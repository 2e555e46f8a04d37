// A page rule's pattern: a path glob where `*` stands for any run of characters, matched whole.
// Matched by literal pieces with indexOf (greedy leftmost, which is exact for `*`-only globs): linear
// in the path per piece, never a regular expression that could backtrack.
export const PAGE_RULE_PATTERN_MAX = 256;

export function validPageRulePattern(pattern: string): boolean {
  if (pattern.length < 1 || pattern.length > PAGE_RULE_PATTERN_MAX || !pattern.startsWith('/')) return false;
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) < 0x20 || pattern.charCodeAt(i) === 0x7f) return false;
  return true;
}

export type PathMatcher = (path: string) => boolean;

export function compilePathGlob(pattern: string): PathMatcher {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return (path) => path === pattern;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p.length > 0);
  return (path) => {
    if (path.length < first.length + last.length || !path.startsWith(first) || !path.endsWith(last)) return false;
    let at = first.length;
    const end = path.length - last.length;
    for (const piece of middle) {
      const found = path.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
