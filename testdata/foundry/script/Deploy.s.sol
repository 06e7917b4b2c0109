// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";
import {vm, SALT, START, CREATE2_DEPLOYER} from "../src/Vm.sol";

/// forge script script/Deploy.s.sol:Deploy --broadcast: deploys a Counter
/// with `new Counter{salt: SALT}(START)`, which forge sends through the
/// CREATE2 deployer, and bumps it once.
contract Deploy {
    function run() external returns (Counter c) {
        vm.startBroadcast();
        c = new Counter{salt: SALT}(START);
        c.increment();
        vm.stopBroadcast();
        address want = address(
            uint160(
                uint256(
                    keccak256(
                        abi.encodePacked(
                            bytes1(0xff), CREATE2_DEPLOYER, SALT, keccak256(abi.encodePacked(type(Counter).creationCode, abi.encode(START)))
                        )
                    )
                )
            )
        );
        require(address(c) == want, "not deployed at the CREATE2 address");
        require(c.number() == START + 1, "counter not bumped");
    }
}
