#!/usr/bin/env node
// Measures the network classifier (services/visitors/src/domain/network-classifier.ts) against the
// labelled sample: prints the confusion matrix, each type's precision and recall, and those of "names
// a company". docs/network-types.md gives the figures; the unit test network-classifier.test.ts
// fails when one drops. Runs the built code: build @glimpse/validation and the visitors service first.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..');
const SAMPLE = path.join(ROOT, 'services', 'visitors', 'test', 'fixtures', 'network-labels.csv');
const BUILT = path.join(ROOT, 'services', 'visitors', 'dist', 'domain', 'network-classifier-eval.js');

const BUILD = 'npx tsc -p shared/validation/tsconfig.build.json && npx tsc -p services/visitors/tsconfig.build.json';

const HELP = `Usage: node scripts/network-classifier-eval.js [--split dev|held-out] [--markdown] [--errors] [--file <csv>]

Classifies every organisation of the labelled sample and prints the confusion matrix (rows: the
label, columns: the classifier's type), each type's precision and recall, and those of "names a
company" (business, education or government).
  --split <part>  only the rows the rules were tuned on (dev) or only the others (held-out)
  --markdown      print the tables as Markdown (for docs/network-types.md)
  --errors        also list the organisations typed otherwise than their label
  --file <csv>    another sample (asn,name,label,source; '#' lines are comments)
                  (default: services/visitors/test/fixtures/network-labels.csv)

Needs the build: ${BUILD}`;

/** @returns {{ split?: string, markdown: boolean, errors: boolean, file: string } | null} null when --help was asked. */
function options() {
  const { values, positionals } = parseArgs({
    options: {
      split: { type: 'string' },
      markdown: { type: 'boolean', default: false },
      errors: { type: 'boolean', default: false },
      file: { type: 'string', default: SAMPLE },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  if (values.help) return null;
  if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]} (see --help)`);
  if (values.split !== undefined && values.split !== 'dev' && values.split !== 'held-out') throw new Error('--split is dev or held-out');
  return { split: values.split, markdown: values.markdown, errors: values.errors, file: values.file };
}

function main() {
  let opts;
  try {
    opts = options();
  } catch (err) {
    console.error(`network-classifier-eval: ${err.message}`);
    return 2;
  }
  if (opts === null) {
    console.log(HELP);
    return 0;
  }
  if (!fs.existsSync(BUILT)) {
    console.error(`network-classifier-eval: ${path.relative(ROOT, BUILT)} is missing; build first:\n  ${BUILD}`);
    return 1;
  }
  const { parseLabelledSample, evaluate, formatEvaluation } = require('../services/visitors/dist/domain/network-classifier-eval.js');
  const { classifyNetwork } = require('../services/visitors/dist/domain/network-classifier.js');
  const rows = parseLabelledSample(fs.readFileSync(opts.file, 'utf8')).filter((row) => opts.split === undefined || row.source.endsWith(`;${opts.split}`));
  console.log(`${path.relative(process.cwd(), opts.file)}${opts.split ? ` (${opts.split})` : ''}`);
  console.log(formatEvaluation(evaluate(rows), opts.markdown));
  if (opts.errors) {
    for (const row of rows) {
      const type = classifyNetwork({ asn: row.asn, name: row.name });
      if (type !== row.label) console.log(`${row.label} -> ${type}\t${row.asn === null ? '' : `AS${row.asn} `}${row.name}`);
    }
  }
  return 0;
}

process.exitCode = main();
