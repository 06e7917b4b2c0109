// Compiles the Solidity sources in ../contracts with solc-js in-process
// (no native compiler, no download) for the Cancun rules the dev chain runs.
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts');

let cached;

/** compile() -> { ContractName: { abi, bytecode: '0x…', deployed: '0x…' } } */
export function compile() {
  if (cached) return cached;
  const sources = {};
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.sol'))) {
    sources[f] = { content: readFileSync(join(dir, f), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) {
    throw new Error('solc: ' + errors.map((e) => e.formattedMessage).join('\n'));
  }
  cached = {};
  for (const file of Object.keys(out.contracts)) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      cached[name] = {
        abi: c.abi,
        bytecode: '0x' + c.evm.bytecode.object,
        deployed: '0x' + c.evm.deployedBytecode.object,
      };
    }
  }
  return cached;
}
