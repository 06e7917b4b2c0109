// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title chaind governance system contract
/// @notice Native code at 0x0000000000000000000000000000000000000805; generated from the node's method table.
interface IGovernance {
    event SubmitProposal(uint256 indexed proposalId, address indexed proposer, uint8 kind);
    event ProposalDeposit(uint256 indexed proposalId, address indexed depositor, uint256 amount);
    event ProposalVote(uint256 indexed proposalId, address indexed voter, uint256 yes, uint256 abstain, uint256 no, uint256 noWithVeto);

    /// gas: 80000
    function submitProposal(uint8 kind, string calldata title, string calldata description, string calldata param, string calldata value) external payable returns (uint256 proposalId);
    /// gas: 25000
    function deposit(uint256 proposalId) external payable returns (bool success);
    /// gas: 25000
    function vote(uint256 proposalId, uint8 option) external returns (bool success);
    /// gas: 25000
    function voteWeighted(uint256 proposalId, uint256 yes, uint256 abstain, uint256 no, uint256 noWithVeto) external returns (bool success);
    /// gas: 5000
    function getProposal(uint256 proposalId) external view returns (uint8 kind, uint8 status, address proposer, string memory title, string memory description, string memory param, string memory value, uint256 submitTime, uint256 depositEnd, uint256 votingStart, uint256 votingEnd, uint256 totalDeposit);
    /// gas: 5000
    function getTally(uint256 proposalId) external view returns (uint256 yes, uint256 abstain, uint256 no, uint256 noWithVeto);
    /// gas: 5000
    function getVote(uint256 proposalId, address voter) external view returns (uint256 yes, uint256 abstain, uint256 no, uint256 noWithVeto);
    /// gas: 5000
    function proposalCount() external view returns (uint256 count);
}
