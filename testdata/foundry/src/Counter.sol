// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A counter the deploy script puts on chaind at a CREATE2 address.
contract Counter {
    uint256 public number;

    constructor(uint256 start) {
        number = start;
    }

    function increment() external {
        number += 1;
    }
}
