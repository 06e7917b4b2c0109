// The end-to-end suite: one chaind --dev node for every suite under
// suites/ (built and started once; each file spends from its own dev
// account). Run with `node --test` from this directory.
import { before, after } from 'node:test';
import { setup, teardown } from './lib/env.js';

before(setup, { timeout: 240_000 });
after(teardown, { timeout: 30_000 });

await import('./suites/basics.js');
await import('./suites/transfers.js');
await import('./suites/contracts.js');
await import('./suites/subscriptions.js');
await import('./suites/filters.js');
await import('./suites/accounts.js');
await import('./suites/viem.js');
await import('./suites/explorer.js');
await import('./suites/graphql.js');
await import('./suites/cosmos.js');
await import('./suites/cometrpc.js');
await import('./suites/staking.js');
await import('./suites/redelegation.js');
await import('./suites/devtools.js');
await import('./suites/viemtest.js');
await import('./suites/grpcweb.js');
await import('./suites/txservice.js');
await import('./suites/clients.js');
