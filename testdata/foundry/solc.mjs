#!/usr/bin/env node
// solc's command line as forge calls it (--version, then --standard-json
// with the input on stdin), served by solc-js from npm: forge takes a
// compiler path (foundry.toml's solc) but only runs native binaries it
// would otherwise download. forge sends every source in the JSON input, so
// no import callback is needed.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const solc = require('solc');
const args = process.argv.slice(2);
if (args.includes('--version')) {
  console.log('solc, the solidity compiler commandline interface\nVersion: ' + solc.version());
  process.exit(0);
}
if (!args.includes('--standard-json')) {
  console.error('solc.mjs: only --version and --standard-json are served; asked: ' + args.join(' '));
  process.exit(2);
}
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => { process.stdout.write(solc.compile(input)); });
