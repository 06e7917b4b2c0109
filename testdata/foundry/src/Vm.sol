// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The few Foundry cheatcodes this project calls, declared here rather than
/// taken from forge-std (a git dependency this offline project does not
/// install). Their address is keccak256("hevm cheat code")'s low 20 bytes.
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
    function envUint(string calldata name) external view returns (uint256);
}

Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

// The CREATE2 deployer forge sends `new C{salt: s}()` through in scripts.
address constant CREATE2_DEPLOYER = 0x4e59b44847b379578588920cA78FbF26c0B4956C;

// The salt and constructor argument of the script's deployment; the fork
// test finds the counter by them.
bytes32 constant SALT = bytes32(uint256(0xc4a1d));
uint256 constant START = 42;
