#!/usr/bin/env node
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const compiled = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(compiled)) {
  process.stderr.write('smsgw is not built yet: run `npm run build` first.\n');
  process.exit(1);
}
require(compiled).main();
