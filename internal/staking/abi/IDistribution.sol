// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title chaind distribution system contract
/// @notice Native code at 0x0000000000000000000000000000000000000801; generated from the node's method table.
interface IDistribution {
    event WithdrawDelegatorReward(address indexed delegator, address indexed validator, uint256 amount);
    event WithdrawValidatorCommission(address indexed validator, uint256 amount);
    event SetWithdrawAddress(address indexed delegator, address indexed withdrawAddress);

    /// gas: 25000
    function withdrawDelegatorRewards(address validator) external returns (uint256 amount);
    /// gas: 20000
    function withdrawValidatorCommission() external returns (uint256 amount);
    /// gas: 10000
    function setWithdrawAddress(address withdrawAddress) external returns (bool success);
    /// gas: 5000
    function delegationRewards(address delegator, address validator) external view returns (uint256 amount);
    /// gas: 5000
    function validatorCommission(address validator) external view returns (uint256 amount);
    /// gas: 5000
    function withdrawAddress(address delegator) external view returns (address withdrawAddress);
    /// gas: 5000
    function communityPool() external view returns (uint256 amount);
}
