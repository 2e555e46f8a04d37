// A page rule's pattern: a path glob where `*` stands for any run of characters, matched whole.
// Matched by literal pieces with indexOf (greedy leftmost, which is exact for `*`-only globs): linear
// in the path per piece, never a regular expression that could backtrack. Which patterns are valid is
// @glimpse/api's validPageRulePattern (one rule for page rules and segments).

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
