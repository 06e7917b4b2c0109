// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title chaind staking system contract
/// @notice Native code at 0x0000000000000000000000000000000000000800; generated from the node's method table.
interface IStaking {
    event CreateValidator(address indexed validator, uint256 amount);
    event EditValidator(address indexed validator, uint256 commissionRate, uint256 minSelfDelegation);
    event Delegate(address indexed delegator, address indexed validator, uint256 amount, uint256 shares);
    event Unbond(address indexed delegator, address indexed validator, uint256 amount, uint256 completionTime);
    event Redelegate(address indexed delegator, address indexed srcValidator, address indexed dstValidator, uint256 amount);
    event Unjail(address indexed validator);
    event LeftNetworkEarly(address indexed validator, uint256 penalty);

    /// gas: 150000
    function createValidator(string calldata moniker, string calldata identity, string calldata website, string calldata securityContact, string calldata details, uint256 commissionRate, uint256 maxRate, uint256 maxChangeRate, uint256 minSelfDelegation, bytes calldata pubkey, string calldata netAddress) external payable returns (bool success);
    /// gas: 40000
    function editValidator(string calldata moniker, string calldata identity, string calldata website, string calldata securityContact, string calldata details, string calldata netAddress, int256 commissionRate, int256 minSelfDelegation) external returns (bool success);
    /// gas: 30000
    function delegate(address validator) external payable returns (bool success);
    /// gas: 45000
    function undelegate(address validator, uint256 amount) external returns (uint256 completionTime);
    /// gas: 55000
    function redelegate(address srcValidator, address dstValidator, uint256 amount) external returns (bool success);
    /// gas: 20000
    function unjail() external returns (bool success);
    /// gas: 5000
    function getValidator(address validator) external view returns (string memory moniker, string memory identity, string memory website, string memory securityContact, string memory details, uint256 commissionRate, uint256 maxRate, uint256 maxChangeRate, uint256 minSelfDelegation, bytes memory pubkey, string memory netAddress, uint256 tokens, uint256 shares, uint8 status, bool jailed, uint256 jailedUntil);
    /// gas: 5000
    function getValidators() external view returns (address[] memory validators);
    /// gas: 5000
    function getDelegation(address delegator, address validator) external view returns (uint256 shares, uint256 amount);
    /// gas: 5000
    function getDelegations(address delegator) external view returns (address[] memory validators, uint256[] memory amounts);
    /// gas: 5000
    function getUnbondingDelegations(address delegator) external view returns (address[] memory validators, uint256[] memory amounts, uint256[] memory completionTimes);
}
