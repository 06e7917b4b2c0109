// The network helpers a Hardhat suite reaches for beyond the sample:
// impersonation, setBalance, mining, and chai's balance matchers, against
// the chaind --dev node the sample runs on.
const {
  loadFixture,
  impersonateAccount,
  stopImpersonatingAccount,
  setBalance,
  mine,
  time,
  takeSnapshot,
  setCoinbase,
  setNextBlockBaseFeePerGas,
  setPrevRandao,
  dropTransaction,
} = require("@nomicfoundation/hardhat-toolbox/network-helpers");
const { expect } = require("chai");

describe("Network helpers", function () {
  async function deployLockFixture() {
    const [owner] = await ethers.getSigners();
    const unlockTime = (await time.latest()) + 3600;
    const lock = await ethers.deployContract("Lock", [unlockTime], { value: 5_000n });
    return { lock, owner, unlockTime };
  }

  it("impersonates an account with no key, funded by setBalance", async function () {
    const stranger = "0x000000000000000000000000000000000000bEEF";
    await setBalance(stranger, ethers.parseEther("3"));
    expect(await ethers.provider.getBalance(stranger)).to.equal(ethers.parseEther("3"));
    await impersonateAccount(stranger);
    const signer = await ethers.getSigner(stranger);
    const [owner] = await ethers.getSigners();
    await expect(signer.sendTransaction({ to: owner.address, value: 1234n })).to.changeEtherBalances(
      [stranger, owner],
      [-1234n, 1234n],
      { includeFee: false }
    );
    await stopImpersonatingAccount(stranger);
    await expect(signer.sendTransaction({ to: owner.address, value: 1n })).to.be.rejected;
  });

  it("impersonates the owner of a contract to call it", async function () {
    const { lock, owner, unlockTime } = await loadFixture(deployLockFixture);
    await time.increaseTo(unlockTime);
    const someone = "0x0000000000000000000000000000000000c0ffee";
    await impersonateAccount(someone);
    const asSomeone = lock.connect(await ethers.getSigner(someone));
    await expect(asSomeone.withdraw()).to.be.revertedWith("You aren't the owner");
    await expect(lock.withdraw()).to.changeEtherBalances([owner, lock], [5_000n, -5_000n]);
  });

  it("mines blocks at an interval", async function () {
    const before = await ethers.provider.getBlock("latest");
    await mine(5, { interval: 60 });
    const after = await ethers.provider.getBlock("latest");
    expect(after.number).to.equal(before.number + 5);
    expect(after.timestamp - before.timestamp).to.be.at.least(4 * 60 + 1);
  });
  it("chooses the next block's coinbase, base fee and PREVRANDAO, and drops a pending transaction", async function () {
    const snapshot = await takeSnapshot();
    const probe = await ethers.deployContract("BlockProbe");
    const coinbase = "0x000000000000000000000000000000000000c01b";
    await setCoinbase(coinbase);
    await setNextBlockBaseFeePerGas(7_000_000_007n);
    await setPrevRandao(0x5eedn);
    // An explicit gas limit: the estimate runs as go-ethereum's does,
    // where a call without a gas price reads BASEFEE as 0, so it would
    // price the basefee slot's store as a no-op.
    await (await probe.record({ gasLimit: 200_000 })).wait();
    expect(await probe.coinbase()).to.equal(ethers.getAddress(coinbase));
    expect(await probe.basefee()).to.equal(7_000_000_007n);
    expect(await probe.prevrandao()).to.equal(0x5eedn);
    const block = await ethers.provider.getBlock("latest");
    expect(block.miner).to.equal(ethers.getAddress(coinbase));
    expect(block.baseFeePerGas).to.equal(7_000_000_007n);

    await network.provider.send("evm_setAutomine", [false]);
    const [owner] = await ethers.getSigners();
    const tx = await owner.sendTransaction({ to: coinbase, value: 1n });
    await dropTransaction(tx.hash);
    await mine();
    expect(await ethers.provider.getTransactionReceipt(tx.hash)).to.equal(null);
    await network.provider.send("evm_setAutomine", [true]);
    // evm_revert puts the coinbase back, as Hardhat's does.
    await snapshot.restore();
    await mine();
    expect((await ethers.provider.getBlock("latest")).miner).to.not.equal(ethers.getAddress(coinbase));
  });
});
