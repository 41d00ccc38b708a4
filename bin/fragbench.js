#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so a checkout needs no build step.
require('tsx/cjs');
require('../cli/main.ts');
