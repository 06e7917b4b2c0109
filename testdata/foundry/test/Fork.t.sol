// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";
import {SALT, START, CREATE2_DEPLOYER} from "../src/Vm.sol";

interface IMulticall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory);
    function getChainId() external view returns (uint256);
}

/// forge test --fork-url <chaind>: runs in forge's EVM on chaind's state,
/// after the deploy script has run there.
contract ForkTest {
    IMulticall3 constant MULTICALL3 = IMulticall3(0xcA11bde05977b3631167028862bE2a173976CA11);
    address constant DEV0 = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266; // the dev mnemonic's first account

    function counter() internal pure returns (Counter) {
        bytes32 h = keccak256(abi.encodePacked(type(Counter).creationCode, abi.encode(START)));
        return Counter(address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), CREATE2_DEPLOYER, SALT, h))))));
    }

    /// The script's counter is on the forked chain, bumped once, and
    /// changes on the fork only.
    function testScriptCounterOnFork() public {
        Counter c = counter();
        require(address(c).code.length > 0, "no counter at its CREATE2 address on the fork");
        require(c.number() == START + 1, "counter does not hold the script's value");
        c.increment();
        require(c.number() == START + 2, "increment on the fork");
    }

    /// The dev account is funded and has sent the script's transactions.
    function testDevAccountOnFork() public view {
        require(DEV0.balance > 0, "dev account unfunded on the fork");
    }

    /// Multicall3 and the CREATE2 deployer are predeployed on chaind --dev.
    function testPredeploysOnFork() public {
        require(CREATE2_DEPLOYER.code.length > 0, "no CREATE2 deployer");
        IMulticall3.Call3[] memory calls = new IMulticall3.Call3[](2);
        calls[0] = IMulticall3.Call3(address(MULTICALL3), false, abi.encodeCall(IMulticall3.getChainId, ()));
        calls[1] = IMulticall3.Call3(address(counter()), false, abi.encodeWithSignature("number()"));
        IMulticall3.Result[] memory res = MULTICALL3.aggregate3(calls);
        require(abi.decode(res[0].returnData, (uint256)) == block.chainid, "chain id through Multicall3");
        require(abi.decode(res[1].returnData, (uint256)) == START + 1, "counter through Multicall3");
    }
}
