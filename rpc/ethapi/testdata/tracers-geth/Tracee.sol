// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

contract Child {
    uint256 public x;
    event Set(uint256 v);
    function set(uint256 v) external payable { x = v; emit Set(v); }
    function fail() external pure { revert("child says no"); }
}

contract Tracee {
    uint256 public n;
    Child public child;
    event Ping(address indexed from, uint256 n);
    constructor() payable { child = new Child(); }
    function run(uint256 v) external payable {
        n += v;
        emit Ping(msg.sender, n);
        child.set{value: 1}(v);
        try child.fail() {} catch {}
        sha256(abi.encode(v));
        (bool ok, ) = address(child).delegatecall(abi.encodeWithSignature("set(uint256)", v + 1));
        require(ok);
        new Child{salt: bytes32(v)}();
    }
    function boom() external { n = 7; emit Ping(msg.sender, 7); revert("boom"); }
    function kill(address payable to) external { selfdestruct(to); }
}
