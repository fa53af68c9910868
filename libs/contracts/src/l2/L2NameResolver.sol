// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignedOffchainResolver} from "../ens/SignedOffchainResolver.sol";

/// @title L2NameResolver
/// @notice L1 resolver of a parent whose subnames live in an L2Registry. ENSIP-10 extended resolver: every
///         `resolve(name, data)` (any record of any subname, or ENSIP-22 `multicall(bytes[])` for a whole profile)
///         reverts an EIP-3668 `OffchainLookup` to the gateway, which reads the registry `l2Registry` on chain
///         `l2ChainId` and signs its answer as for SignedOffchainResolver (it is one, so one gateway signing path
///         serves offchain and L2 names). The URL names the registry to the gateway; `l2ChainId` and `l2Registry`
///         say on chain which one it must be.
contract L2NameResolver is SignedOffchainResolver {
    event UrlChanged(string url);

    uint256 public immutable l2ChainId;
    address public immutable l2Registry;

    constructor(
        string memory url_,
        address[] memory signers_,
        uint256 l2ChainId_,
        address l2Registry_
    ) SignedOffchainResolver(url_, signers_) {
        l2ChainId = l2ChainId_;
        l2Registry = l2Registry_;
    }

    function setUrl(string calldata url_) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        url = url_;
        emit UrlChanged(url_);
    }
}
