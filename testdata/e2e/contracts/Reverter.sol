// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Fails in every way a caller must be able to tell apart: a reason string,
/// a custom error with arguments, a panic code and a bare revert. It also
/// keeps one storage value so a successful write can be told from a failed one.
contract Reverter {
    error Unauthorized(address caller, uint256 code);

    uint256 public value;

    event ValueSet(address indexed by, uint256 value);

    function withReason() external pure {
        revert("reverter: no way");
    }

    function withCustom(uint256 code) external view {
        revert Unauthorized(msg.sender, code);
    }

    function withPanic(uint256 d) external pure returns (uint256) {
        return 10 / d; // d == 0: Panic(0x12)
    }

    function bare() external pure {
        revert();
    }

    /// Reverts with a reason unless v is positive, so estimateGas sees both paths.
    function set(uint256 v) external {
        require(v > 0, "reverter: zero");
        value = v;
        emit ValueSet(msg.sender, v);
    }
}
