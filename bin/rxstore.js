#!/usr/bin/env node
// The rxstore command: everything lives in the compiled CLI module.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
