// Hardhat's sample project, run against chaind: `npx hardhat test
// --network chaind` with CHAIND_URL naming a running `chaind --dev
// --block-time 0` (run.mjs starts one).
require("@nomicfoundation/hardhat-toolbox");
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC_VERSION = "0.8.28";

// Hardhat downloads native compilers from the internet; CI machines may
// not reach it. The solc npm package (solc-js) of the same version is
// already installed, so compile with that instead.
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  const solc = require("solc");
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: args.solcVersion,
    longVersion: solc.version(),
  };
});

/** @type import('hardhat/config').HardhatUserConfig */
module.exports = {
  solidity: SOLC_VERSION,
  networks: {
    chaind: {
      url: process.env.CHAIND_URL || "http://127.0.0.1:8545",
    },
  },
};
