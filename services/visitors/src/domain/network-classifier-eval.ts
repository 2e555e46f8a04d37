// Measures the network classifier against a labelled sample (test/fixtures/network-labels.csv:
// `asn,name,label,source`, '#' lines are comments): the confusion matrix, each type's precision and
// recall, and those of "names a company" (business, education or government). Used by the unit test,
// which fails when a figure drops, and by scripts/network-classifier-eval.js, which prints them.
import { NETWORK_TYPES, isNetworkType, namesCompany, type NetworkType } from '@glimpse/validation';
import { classifyNetwork, type NetworkOrganisation } from './network-classifier.js';

export interface LabelledOrganisation {
  asn: number | null;
  name: string;
  label: NetworkType;
  /** Where the label comes from, then `;dev` or `;held-out` (whether the rules were tuned on the row). */
  source: string;
}

export interface Score {
  /** Right among those predicted so (null when none was). */
  precision: number | null;
  /** Found among those labelled so (null when none was). */
  recall: number | null;
  correct: number;
  predicted: number;
  labelled: number;
}

export interface Evaluation {
  rows: number;
  /** confusion[label][predicted] = organisations. */
  confusion: Record<NetworkType, Record<NetworkType, number>>;
  types: Record<NetworkType, Score>;
  /** Predicted business, education or government, against labelled so. */
  namesCompany: Score;
}

/** RFC 4180 fields of one line (quotes, doubled quotes inside them); the sample has no line breaks inside a field. */
function fields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(field);
      field = '';
    } else field += ch;
  }
  out.push(field);
  return out;
}

export function parseLabelledSample(text: string): LabelledOrganisation[] {
  const rows: LabelledOrganisation[] = [];
  let header = true;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    if (line.trim().length === 0 || line.startsWith('#')) continue;
    if (header) {
      header = false;
      if (line !== 'asn,name,label,source') throw new Error(`line ${index + 1}: expected the header asn,name,label,source`);
      continue;
    }
    const [asn, name, label, source, ...rest] = fields(line);
    if (name === undefined || label === undefined || source === undefined || rest.length > 0) throw new Error(`line ${index + 1}: expected 4 fields`);
    if (!isNetworkType(label)) throw new Error(`line ${index + 1}: ${label} is not a network type`);
    if (asn !== '' && !/^\d+$/.test(asn!)) throw new Error(`line ${index + 1}: asn ${asn} is not a number`);
    rows.push({ asn: asn === '' ? null : Number(asn), name, label, source });
  }
  return rows;
}

const score = (correct: number, predicted: number, labelled: number): Score => ({
  precision: predicted > 0 ? correct / predicted : null,
  recall: labelled > 0 ? correct / labelled : null,
  correct,
  predicted,
  labelled,
});

export function evaluate(rows: readonly LabelledOrganisation[], classify: (org: NetworkOrganisation) => NetworkType = classifyNetwork): Evaluation {
  const confusion = Object.fromEntries(
    NETWORK_TYPES.map((label) => [label, Object.fromEntries(NETWORK_TYPES.map((type) => [type, 0]))]),
  ) as Evaluation['confusion'];
  for (const row of rows) confusion[row.label][classify({ asn: row.asn, name: row.name })] += 1;
  const sum = (test: (label: NetworkType, predicted: NetworkType) => boolean) =>
    NETWORK_TYPES.reduce(
      (total, label) => total + NETWORK_TYPES.reduce((n, predicted) => n + (test(label, predicted) ? confusion[label][predicted] : 0), 0),
      0,
    );
  const types = Object.fromEntries(
    NETWORK_TYPES.map((type) => [
      type,
      score(
        confusion[type][type],
        sum((_, predicted) => predicted === type),
        sum((label) => label === type),
      ),
    ]),
  ) as Evaluation['types'];
  return {
    rows: rows.length,
    confusion,
    types,
    namesCompany: score(
      sum((label, predicted) => namesCompany(label) && namesCompany(predicted)),
      sum((_, predicted) => namesCompany(predicted)),
      sum((label) => namesCompany(label)),
    ),
  };
}

const percent = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)} %`);
const counts = (s: Score) => `${s.correct}/${s.predicted} predicted, ${s.correct}/${s.labelled} labelled`;

/** The confusion matrix (rows: label, columns: predicted) and the scores, as plain text or Markdown tables. */
export function formatEvaluation(evaluation: Evaluation, markdown = false): string {
  const labels = NETWORK_TYPES.filter((label) => evaluation.types[label].labelled > 0 || evaluation.types[label].predicted > 0);
  const table = (head: string[], body: string[][]) => {
    if (markdown) {
      const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
      return [row(head), row(head.map(() => '---')), ...body.map(row)].join('\n');
    }
    const widths = head.map((cell, i) => Math.max(cell.length, ...body.map((line) => line[i]!.length)));
    const row = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    return [row(head), ...body.map(row)].join('\n');
  };
  const matrix = table(
    ['label \\ predicted', ...labels, 'total'],
    labels
      .filter((label) => evaluation.types[label].labelled > 0)
      .map((label) => [label, ...labels.map((type) => String(evaluation.confusion[label][type])), String(evaluation.types[label].labelled)]),
  );
  const scores = table(
    ['type', 'precision', 'recall', 'counts'],
    [
      // No organisation is labelled unknown: its precision would be 0 by construction, so it is left out.
      ...labels.map((type) => {
        const s = evaluation.types[type];
        return [type, percent(s.labelled > 0 ? s.precision : null), percent(s.recall), counts(s)];
      }),
      ['names a company', percent(evaluation.namesCompany.precision), percent(evaluation.namesCompany.recall), counts(evaluation.namesCompany)],
    ],
  );
  return `${evaluation.rows} organisations\n\n${matrix}\n\n${scores}\n`;
}
