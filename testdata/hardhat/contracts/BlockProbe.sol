// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.28;

// Records the block fields a dev node's next-block helpers choose, as the
// transaction that calls record() sees them.
contract BlockProbe {
    address public coinbase;
    uint256 public basefee;
    uint256 public prevrandao;

    function record() external {
        coinbase = block.coinbase;
        basefee = block.basefee;
        prevrandao = block.prevrandao;
    }
}
