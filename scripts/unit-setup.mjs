// Vitest's global set-up (vitest.config.ts): the unit tests' embedded databases start from the build's
// PGlite template (lib/db/cluster-template.ts), as servers do. Where there is no build yet (`npm test`
// runs the unit step before the e2e step builds), the template is made once here (a few seconds),
// rather than PGlite's initdb running for every test's database (about 7 s each). A template from an
// earlier build is fine: a database opened from it applies the migrations it lacks. The tokenizer's
// table (lib/chat/tokens.ts) likewise.
import fs from 'node:fs';
import { buildPgliteTemplate, buildTokenTable, PGLITE_TEMPLATE, TOKEN_TABLE } from './build-if-needed.mjs';

export default function setup() {
  if (!fs.existsSync(PGLITE_TEMPLATE)) buildPgliteTemplate();
  if (!fs.existsSync(TOKEN_TABLE)) buildTokenTable();
}
