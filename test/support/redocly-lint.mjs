// Lints an OpenAPI document with Redocly's `recommended` ruleset (@redocly/openapi-core, the engine of
// `redocly lint`) and prints its problems as JSON. An ES module run as its own process: the package is
// ESM-only, which jest's CommonJS runtime cannot load. Usage: node redocly-lint.mjs <document.json> [rules-json]
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import process from 'node:process';

const [documentPath, rulesJson = '{}'] = process.argv.slice(2);
const config = await createConfig({ extends: ['recommended'], rules: JSON.parse(rulesJson) });
const problems = await lintFromString({ source: readFileSync(documentPath, 'utf8'), absoluteRef: documentPath, config });
const found = problems.map((p) => ({ rule: p.ruleId, severity: p.severity, message: p.message, at: p.location[0]?.pointer ?? '' }));
process.stdout.write(JSON.stringify(found));
