// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ExtendedResolverFeatures
/// @notice What our ENSIP-10 extended resolvers advertise: ERC-165 for the extended resolver (`resolve(bytes,bytes)`)
///         and ERC-7996 `supportsFeature` with the ENSIP-22 RESOLVE_MULTICALL feature, so a universal resolver sends
///         a whole profile as one `resolve(name, multicall(bytes[]))`.
abstract contract ExtendedResolverFeatures {
    bytes4 internal constant ERC165_ID = 0x01ffc9a7;
    bytes4 internal constant EXTENDED_RESOLVER_ID = 0x9061b923; // resolve(bytes,bytes)
    bytes4 internal constant FEATURE_SUPPORTER_ID = 0x582de3e7; // ERC-7996 supportsFeature(bytes4)
    bytes4 internal constant RESOLVE_MULTICALL = bytes4(keccak256('eth.ens.resolver.extended.multicall'));

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == ERC165_ID || interfaceId == EXTENDED_RESOLVER_ID || interfaceId == FEATURE_SUPPORTER_ID;
    }

    /// @notice ENSIP-22 features: RESOLVE_MULTICALL.
    function supportsFeature(bytes4 feature) external pure returns (bool) {
        return feature == RESOLVE_MULTICALL;
    }
}
