// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ForeignLookupResolverTestDouble
/// @notice A resolver whose `addr(bytes32)` reverts an EIP-3668 `OffchainLookup` naming another contract as its
///         sender (as a contract relaying another's lookup does), to `url`, with the call itself as request data.
contract ForeignLookupResolverTestDouble {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);

    address public immutable lookupSender;
    string internal url;

    constructor(address lookupSender_, string memory url_) {
        lookupSender = lookupSender_;
        url = url_;
    }

    function addr(bytes32) external view returns (address) {
        string[] memory urls = new string[](1);
        urls[0] = url;
        revert OffchainLookup(lookupSender, urls, msg.data, this.addr.selector, '');
    }
}
